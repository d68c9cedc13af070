// Our fills, newest first (the engine's FillView, from `fill` events and recent_trades): time
// (market time, New York), side, quantity, price, maker/taker, fee, the P&L the fill realised,
// the position after it and the order-to-fill latency.

import type { FillView, SymbolState } from '../shared/api.ts';
import { el, setClass, setText } from './dom.ts';
import { fmtInt, fmtLatency, fmtNyTimeMs, fmtPnl, fmtSignedInt, fmtUsd, priceFormat, signClass } from './format.ts';
import { fillKey } from '../shared/fill-store.ts';

const NY_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' });
/** YYYY-MM-DD in New York of an ISO time. */
const nyDate = (iso: string): string => NY_DATE.format(Date.parse(iso));
import type { SymbolHistory } from '../shared/store.ts';

export const TRADE_ROWS = 100;

const COLUMNS: [string, string, string][] = [
  ['time', 'Time (NY)', 'market time of the fill, New York'],
  ['side', 'Side', ''],
  ['qty', 'Qty', 'contracts'],
  ['price', 'Price', ''],
  ['liq', 'Liq', 'M = maker (passive), T = taker (aggressive)'],
  ['fee', 'Fee $', 'fees of this fill, USD'],
  ['pnl', 'P&L $', 'closed-trade P&L this fill realised, net of fees'],
  ['pos', 'Pos', 'net position after the fill'],
  ['lat', 'Order→fill', 'order sent until its fill reached the engine (simulated; includes the time the order rested in the queue)'],
];

export class TradesView {
  private readonly rows: { tr: HTMLTableRowElement; td: HTMLTableCellElement[] }[] = [];
  private readonly tbody: HTMLTableSectionElement;
  private readonly empty: HTMLElement;
  private sig = '';
  private seen = new Set<string>();
  private symbol = '';

  constructor(
    container: HTMLElement,
    private readonly sub: HTMLElement,
  ) {
    const wrap = el('div', 'scroll');
    const table = el('table', 'grid-table trades');
    const thead = el('thead');
    const hr = el('tr');
    for (const [key, label, title] of COLUMNS) {
      const th = el('th', key, label);
      if (title) th.title = title;
      hr.append(th);
    }
    thead.append(hr);
    this.tbody = el('tbody');
    table.append(thead, this.tbody);
    this.empty = el('div', 'empty', 'no fills yet');
    wrap.append(table, this.empty);
    container.append(wrap);
  }

  render(st: SymbolState | null, h: SymbolHistory | null): void {
    if (!st || !h) return;
    this.renderCount(st, h.fills.list);
    const sig = `${st.symbol}|${h.fills.id}.${h.fills.revision}`;
    if (sig === this.sig) return;
    this.sig = sig;
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    const fills = h.fills.list;
    const n = Math.min(fills.length, TRADE_ROWS);
    const fresh = st.symbol === this.symbol;
    this.symbol = st.symbol;
    const seen = new Set<string>();
    while (this.rows.length < n) {
      const tr = el('tr');
      const td = COLUMNS.map(([key]) => el('td', key === 'side' || key === 'liq' || key === 'time' ? key : `num ${key}`));
      tr.append(...td);
      this.tbody.append(tr);
      this.rows.push({ tr, td });
    }
    for (let i = 0; i < this.rows.length; i++) {
      const r = this.rows[i];
      const fl: FillView | undefined = fills[i];
      r.tr.hidden = !fl;
      if (!fl) continue;
      const k = fillKey(fl);
      seen.add(k);
      r.tr.dataset.time = fl.time; // the exact time (the cell shows New York time of day only)
      setClass(r.tr, `${fl.side}${fresh && !this.seen.has(k) ? ' new' : ''}`);
      const [time, side, qty, price, liq, fee, pnl, pos, lat] = r.td;
      setText(time, fmtNyTimeMs(Date.parse(fl.time)));
      setText(side, fl.side === 'buy' ? 'BUY' : 'SELL');
      setText(qty, fmtInt(fl.qty));
      setText(price, f.price(fl.price));
      setText(liq, fl.liquidity === 'maker' ? 'M' : 'T');
      setText(fee, fmtUsd(fl.fee));
      setText(pnl, fl.pnl === 0 ? '0.00' : fmtPnl(fl.pnl));
      setClass(pnl, `num pnl ${signClass(fl.pnl)}`);
      setText(pos, fmtSignedInt(fl.position));
      setText(lat, fmtLatency(fl.order_to_fill_us));
    }
    this.seen = seen;
    this.empty.hidden = fills.length > 0;
  }

  /**
   * The session's fill count, on every state. The state's count comes from the engine's last
   * snapshot, which can be behind the fills the stream has already delivered (its `fill` events
   * and recent_trades come straight off the fill ring). So the fills listed ahead of the newest
   * one the state reports are added, and the count is never below the fills of this session the
   * table lists (a fill's New York date is its session's date).
   */
  private renderCount(st: SymbolState, fills: readonly FillView[]): void {
    let newer = 0;
    const reported = st.recent_trades[0];
    if (reported) {
      const k = fillKey(reported);
      while (newer < fills.length && fillKey(fills[newer]) !== k) newer++;
      if (newer === fills.length) newer = 0; // not listed (cannot happen: states are merged first)
    }
    let listed = 0;
    for (const f of fills) if (nyDate(f.time) === st.session_date) listed++;
    const count = Math.max(st.stats.fills + newer, listed);
    setText(this.sub, `${fmtInt(count)} this session · latest ${fmtInt(Math.min(fills.length, TRADE_ROWS))} shown`);
  }
}
