// GET /api/state[?symbol=X]: the live state of every symbol (or one). The stream's `state` event
// carries the same payload.

import type { StatePayload, SymbolState } from '../../api/live-state.ts';
import type { RuntimeView } from '../../runtime/view.ts';
import { VERSION } from '../../version.ts';
import { uptimeSeconds, type ApiContext, type App } from '../context.ts';
import { apiError } from '../errors.ts';

export function statePayload(runtime: RuntimeView, only?: string, dataSource = 'synthetic'): StatePayload {
  const symbols: string[] = [];
  const states: Record<string, SymbolState> = {};
  for (const s of only === undefined ? runtime.symbols : [only]) {
    const st = runtime.state(s);
    if (st) {
      symbols.push(s);
      states[s] = st;
    }
  }
  return { version: VERSION, uptime_s: uptimeSeconds(runtime), data_source: dataSource, symbols, states };
}

/**
 * The state as JSON text, rebuilt at most every `maxAgeMs`: the engine thread publishes its
 * snapshot every 50 ms, so building more often would serialise the same data again. One cache
 * serves /api/state and the stream's state events.
 */
export class StateCache {
  private readonly entries = new Map<string, { at: number; json: string }>();
  constructor(
    private readonly runtime: RuntimeView,
    private readonly maxAgeMs = 50,
    /** The live market: "synthetic" or "dbn <name>" (liveDataSource). */
    private readonly dataSource = 'synthetic',
  ) {}

  json(only?: string): string {
    const key = only ?? '';
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs) return hit.json;
    const json = JSON.stringify(statePayload(this.runtime, only, this.dataSource));
    this.entries.set(key, { at: now, json });
    return json;
  }
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

export function registerState(app: App, ctx: ApiContext, cache: StateCache): void {
  app.get('/api/state', (c) => {
    const q = c.req.query('symbol');
    if (q === undefined) return c.body(cache.json(), 200, JSON_HEADERS);
    const wanted = q.trim().toUpperCase();
    const symbol = ctx.runtime.symbols.find((s) => s.toUpperCase() === wanted);
    if (!symbol) return apiError(c, 404, 'unknown_symbol', `unknown symbol '${q}': this engine runs ${ctx.runtime.symbols.join(', ') || 'no symbol'}`);
    return c.body(cache.json(symbol), 200, JSON_HEADERS);
  });
}
