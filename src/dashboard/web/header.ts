// Top bar: symbol selector (when several symbols run), the instrument, market time, session,
// engine version/uptime and the connection state (live / stale / reconnecting / disconnected).

import { CONTRACTS } from '../../market/instruments.ts';
import type { ConnState } from './connection.ts';
import { byId, el, setAttr, setText } from './dom.ts';
import { DASH, fmtDuration, fmtInt, fmtNyTime, fmtUsd, priceFormat } from './format.ts';
import type { Store } from '../shared/store.ts';
import { dataSourceLabel } from './data-source.ts';

const CONN_LABEL: Record<ConnState, string> = {
  connecting: 'connecting',
  live: 'live',
  stale: 'stale',
  reconnecting: 'reconnecting',
  disconnected: 'disconnected',
};

export class HeaderView {
  private readonly select = byId<HTMLSelectElement>('symbol');
  private readonly instrument = byId('instrument');
  private readonly simTime = byId('sim-time');
  private readonly session = byId('session-date');
  private readonly eps = byId('eps');
  private readonly source = byId('data-source');
  private readonly strategy = byId('strategy-name');
  private readonly version = byId('engine-version');
  private readonly uptime = byId('engine-uptime');
  private readonly conn = byId('conn');
  private readonly connLabel = byId('conn-label');
  private readonly age = byId('data-age');
  private symbolsSig = '';

  constructor(
    private readonly store: Store,
    onSelect: (symbol: string) => void,
  ) {
    this.select.addEventListener('change', () => onSelect(this.select.value));
  }

  setConnection(s: ConnState, detail: string): void {
    setAttr(this.conn, 'data-state', s);
    document.documentElement.dataset.conn = s;
    setText(this.connLabel, CONN_LABEL[s]);
    this.conn.title = detail;
  }

  /** Age of the last frame; called once a second. */
  tick(now: number): void {
    const at = this.store.lastFrameAt;
    setText(this.age, at ? `${((now - at) / 1000).toFixed(1)} s ago` : DASH);
  }

  render(): void {
    const p = this.store.latest;
    if (!p) return;
    const sig = p.symbols.join(',');
    if (sig !== this.symbolsSig) {
      this.symbolsSig = sig;
      this.select.replaceChildren(...p.symbols.map((s) => el('option', undefined, s)));
      this.select.disabled = p.symbols.length < 2;
    }
    if (this.store.selected && this.select.value !== this.store.selected) this.select.value = this.store.selected;
    const st = this.store.current;
    setText(this.version, p.version);
    setText(this.uptime, `up ${fmtDuration(p.uptime_s)}`);
    setText(this.source, dataSourceLabel(p.data_source));
    this.source.title = p.data_source ?? '';
    setText(this.strategy, p.strategy ? `${p.strategy.name} ${p.strategy.version}` : DASH);
    this.strategy.title = p.strategy ? `content hash ${p.strategy.hash}` : '';
    if (!st) return;
    const spec = Object.prototype.hasOwnProperty.call(CONTRACTS, st.root) ? CONTRACTS[st.root] : undefined;
    const f = priceFormat(st.root, st.tick_size, st.point_value);
    setText(this.instrument, spec ? `${spec.product} · tick ${f.price(spec.tickSize)} = $${fmtUsd(spec.tickValue)}` : st.root);
    const ms = Date.parse(st.sim_time);
    setText(this.simTime, `${fmtNyTime(ms)} NY`);
    setText(this.session, st.session_date);
    setText(this.eps, fmtInt(st.counters.events_per_sec));
  }
}
