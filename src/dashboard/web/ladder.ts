// The order-book ladder (a broker's DOM): 15 ask levels above, the spread/mid row, 15 bid levels
// below, best prices next to the spread row. Sizes carry depth bars scaled to the largest
// visible level; a size that changed since the last frame is tinted (up/down); our resting
// orders are marked in the outer columns at their price (pending states dimmed).
// Every figure is the engine's SymbolState.book as received.

import type { OurOrder, SymbolState } from '../shared/api.ts';
import { el, setAttr, setClass, setText } from './dom.ts';
import { DASH, fmtDec2, fmtInt, priceFormat } from './format.ts';

export const LADDER_LEVELS = 15;

interface Row {
  tr: HTMLTableRowElement;
  oursBuy: HTMLTableCellElement;
  bid: HTMLTableCellElement;
  price: HTMLTableCellElement;
  ask: HTMLTableCellElement;
  oursSell: HTMLTableCellElement;
}

export class LadderView {
  private readonly askRows: Row[] = []; // index 0 = best ask (drawn lowest)
  private readonly bidRows: Row[] = []; // index 0 = best bid (drawn highest)
  private readonly spreadCell: HTMLTableCellElement;
  private readonly footer: HTMLElement;
  private readonly sub: HTMLElement;
  private prevSizes = new Map<string, number>();
  private prevSymbol = '';

  constructor(container: HTMLElement, sub: HTMLElement) {
    this.sub = sub;
    const table = el('table', 'ladder');
    const head = el('thead');
    const hr = el('tr');
    for (const [t, title] of [
      ['Ours', 'our resting buy orders at this price (qty left)'],
      ['Bid', 'bid size (contracts)'],
      ['Price', ''],
      ['Ask', 'ask size (contracts)'],
      ['Ours', 'our resting sell orders at this price (qty left)'],
    ]) {
      const th = el('th', undefined, t);
      if (title) th.title = title;
      hr.append(th);
    }
    head.append(hr);
    const body = el('tbody');
    const makeRow = (side: 'bid' | 'ask', level: number): Row => {
      const tr = el('tr', side);
      tr.dataset.side = side;
      tr.dataset.level = String(level);
      const r: Row = {
        tr,
        oursBuy: el('td', 'ours buy'),
        bid: el('td', 'size bid'),
        price: el('td', 'price'),
        ask: el('td', 'size ask'),
        oursSell: el('td', 'ours sell'),
      };
      tr.append(r.oursBuy, r.bid, r.price, r.ask, r.oursSell);
      return r;
    };
    for (let i = 0; i < LADDER_LEVELS; i++) this.askRows.push(makeRow('ask', i));
    for (let i = 0; i < LADDER_LEVELS; i++) this.bidRows.push(makeRow('bid', i));
    for (let i = LADDER_LEVELS - 1; i >= 0; i--) body.append(this.askRows[i].tr);
    const spreadRow = el('tr', 'spread-row');
    this.spreadCell = el('td');
    this.spreadCell.colSpan = 5;
    spreadRow.append(this.spreadCell);
    body.append(spreadRow);
    for (let i = 0; i < LADDER_LEVELS; i++) body.append(this.bidRows[i].tr);
    table.append(head, body);
    this.footer = el('div', 'ladder-foot');
    container.append(table, this.footer);
  }

  render(st: SymbolState | null): void {
    if (!st) return;
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    const book = st.book;
    if (st.symbol !== this.prevSymbol) {
      this.prevSizes.clear();
      this.prevSymbol = st.symbol;
    }
    let max = 1;
    for (const l of book.bids) if (l.size > max) max = l.size;
    for (const l of book.asks) if (l.size > max) max = l.size;

    // Our orders by price and side.
    const ours = new Map<string, { buy: number; sell: number; pending: boolean }>();
    const shown = new Set<string>();
    for (const o of book.our_orders) {
      const key = f.price(o.price);
      const e = ours.get(key) ?? { buy: 0, sell: 0, pending: false };
      if (o.side === 'buy') e.buy += o.leaves;
      else e.sell += o.leaves;
      if (o.state !== 'live') e.pending = true;
      ours.set(key, e);
    }

    const sizes = new Map<string, number>();
    const fill = (rows: Row[], levels: SymbolState['book']['bids'], side: 'bid' | 'ask') => {
      for (let i = 0; i < LADDER_LEVELS; i++) {
        const r = rows[i];
        const l = levels[i];
        const sizeCell = side === 'bid' ? r.bid : r.ask;
        if (!l) {
          setText(r.price, '');
          setText(sizeCell, '');
          sizeCell.style.setProperty('--w', '0%');
          setText(r.oursBuy, '');
          setText(r.oursSell, '');
          setAttr(r.tr, 'data-price', '');
          continue;
        }
        const p = f.price(l.price);
        setText(r.price, p);
        setAttr(r.tr, 'data-price', p);
        setText(sizeCell, fmtInt(l.size));
        sizeCell.style.setProperty('--w', `${((l.size / max) * 100).toFixed(1)}%`);
        const key = `${side}${p}`;
        sizes.set(key, l.size);
        const prev = this.prevSizes.get(key);
        setClass(sizeCell, `size ${side}${prev === undefined || prev === l.size ? '' : prev < l.size ? ' chg-up' : ' chg-dn'}`);
        const o = ours.get(p);
        if (o) shown.add(p);
        setText(r.oursBuy, o && o.buy ? `▶${o.buy}` : '');
        setText(r.oursSell, o && o.sell ? `${o.sell}◀` : '');
        setClass(r.oursBuy, `ours buy${o?.pending ? ' pending' : ''}`);
        setClass(r.oursSell, `ours sell${o?.pending ? ' pending' : ''}`);
        setClass(r.tr, `${side}${i === 0 ? ' best' : ''}${o ? ' has-ours' : ''}`);
      }
    };
    fill(this.askRows, book.asks, 'ask');
    fill(this.bidRows, book.bids, 'bid');
    this.prevSizes = sizes;

    const ticks = book.spread === null ? null : Math.round(book.spread / f.tick);
    setText(
      this.spreadCell,
      `spread ${book.spread === null ? DASH : f.price(book.spread)}${ticks === null ? '' : ` (${ticks} tick${ticks === 1 ? '' : 's'})`}   ` +
        `mid ${f.fine(book.mid)}   micro ${book.microprice === null ? DASH : book.microprice.toFixed(f.decimals + 2)}`,
    );

    let bidDepth = 0;
    let askDepth = 0;
    for (const l of book.bids) bidDepth += l.size;
    for (const l of book.asks) askDepth += l.size;
    const imb = bidDepth + askDepth > 0 ? (bidDepth - askDepth) / (bidDepth + askDepth) : null;
    const outside = book.our_orders.filter((o: OurOrder) => !shown.has(f.price(o.price)));
    const outsideText = outside.length
      ? `   off-ladder: ${outside.map((o) => `${o.side === 'buy' ? 'B' : 'S'}${o.leaves}@${f.price(o.price)}`).join(' ')}`
      : '';
    setText(
      this.footer,
      `Σbid ${fmtInt(bidDepth)}  Σask ${fmtInt(askDepth)}  imb ${imb === null ? DASH : fmtDec2(imb)}  our orders ${book.our_orders.length}${outsideText}`,
    );
    setText(this.sub, `${f.price(book.best_bid)} × ${f.price(book.best_ask)} · ${book.bids.length}×${book.asks.length} levels`);
  }
}
