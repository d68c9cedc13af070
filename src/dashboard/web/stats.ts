// Performance statistics of the live session, straight from SymbolState.position, .stats and
// .counters (the engine computes every figure; nothing is derived here but formatting).

import type { SymbolState } from '../shared/api.ts';
import { keyValueGrid, setClass, setText } from './dom.ts';
import { DASH, fmtDec2, fmtFracPct, fmtInt, fmtPct, fmtPnl, fmtSignedInt, fmtUsd, priceFormat, signClass } from './format.ts';

const ITEMS = [
  ['total_pnl', 'Total P&L $', 'equity minus initial capital (realized gross - fees + unrealized)'],
  ['realized', 'Realized (gross) $', 'closed-trade P&L on price, gross of fees (realized_pnl_gross)'],
  ['unrealized', 'Unrealized $', 'open position marked at the last two-sided mid'],
  ['fees', 'Fees $', 'fees paid'],
  ['daily', 'Daily P&L $', 'P&L of the current session'],
  ['equity', 'Equity $', ''],
  ['sharpe', 'Sharpe', "annualised Sharpe ratio of the session's per-minute equity returns (engine figure); — until two returns exist"],
  ['win_rate', 'Win rate', 'winning round trips / round trips'],
  ['pf', 'Profit factor', 'gross win / gross loss of round trips'],
  ['trades', 'Round trips', 'closed trades (FIFO)'],
  ['fills', 'Fills', ''],
  ['volume', 'Volume', 'contracts filled'],
  ['max_dd', 'Max drawdown', 'largest peak-to-trough equity drop, percent of the peak'],
  ['position', 'Position', 'net contracts'],
  ['avg_price', 'Avg price', 'average entry price of the open position'],
  ['orders', 'Orders', 'orders sent'],
  ['cancels', 'Cancels', ''],
  ['rejects', 'Rejects', ''],
  ['events', 'Events', 'market events processed'],
  ['eps', 'Events/s', ''],
  ['drops', 'Ring drops', 'records dropped by full shared-memory rings'],
] as const;

type Key = (typeof ITEMS)[number][0];

export class StatsView {
  private readonly v: Record<Key, HTMLElement>;

  constructor(container: HTMLElement) {
    this.v = keyValueGrid<Key>(container, ITEMS, 'kv-grid stats');
  }

  render(st: SymbolState | null): void {
    if (!st) return;
    const { position: p, stats: s, counters: c } = st;
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    const signed = (k: Key, x: number) => {
      setText(this.v[k], fmtPnl(x));
      setClass(this.v[k], `num ${signClass(x)}`);
    };
    signed('total_pnl', p.total_pnl);
    signed('realized', p.realized_pnl_gross);
    signed('unrealized', p.unrealized_pnl);
    setText(this.v.fees, fmtUsd(p.fees));
    signed('daily', p.daily_pnl);
    setText(this.v.equity, fmtUsd(p.equity));
    setText(this.v.sharpe, fmtDec2(s.sharpe_ratio));
    setText(this.v.win_rate, s.total_trades > 0 ? fmtFracPct(s.win_rate, 1) : DASH);
    setText(this.v.pf, s.profit_factor === null ? DASH : fmtDec2(s.profit_factor));
    setText(this.v.trades, fmtInt(s.total_trades));
    setText(this.v.fills, fmtInt(s.fills));
    setText(this.v.volume, fmtInt(s.volume));
    setText(this.v.max_dd, fmtPct(s.max_drawdown_pct, 3));
    setText(this.v.position, fmtSignedInt(p.contracts));
    setClass(this.v.position, `num ${signClass(p.contracts)}`);
    setText(this.v.avg_price, p.avg_price === null ? DASH : p.avg_price.toFixed(f.decimals + 2));
    setText(this.v.orders, fmtInt(c.orders));
    setText(this.v.cancels, fmtInt(c.cancels));
    setText(this.v.rejects, fmtInt(c.rejects));
    setText(this.v.events, fmtInt(c.events));
    setText(this.v.eps, fmtInt(c.events_per_sec));
    setText(this.v.drops, fmtInt(c.ring_drops));
    setClass(this.v.drops, `num ${c.ring_drops > 0 ? 'warn' : ''}`);
  }
}
