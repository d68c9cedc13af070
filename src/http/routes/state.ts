// GET /api/state[?symbol=X]: the live state of every symbol (or one). The stream's `state` event
// carries the same payload.

import type { StatePayload, SymbolState } from '../../wire/live-state.ts';
import type { RuntimeView } from '../../runtime/view.ts';
import { VERSION } from '../../version.ts';
import { uptimeSeconds, type ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';
import { apiError } from '../errors.ts';
import { STATE_HEADERS, STATE_PATH } from './state-path.ts';

export type LiveStrategy = StatePayload['strategy'];

export function statePayload(runtime: RuntimeView, only?: string, dataSource = 'synthetic', strategy: LiveStrategy = null): StatePayload {
  const symbols: string[] = [];
  const states: Record<string, SymbolState> = {};
  for (const s of only === undefined ? runtime.symbols : [only]) {
    const st = runtime.state(s);
    if (st) {
      symbols.push(s);
      states[s] = st;
    }
  }
  return { version: VERSION, uptime_s: uptimeSeconds(runtime), data_source: dataSource, strategy, symbols, states };
}

/**
 * The state as JSON text and as its UTF-8 bytes, rebuilt at most every `maxAgeMs`: the engine
 * thread publishes its snapshot every 50 ms, so building more often would serialise the same
 * data again. One cache serves /api/state (both paths: state-fast-path.ts) and the stream's state events.
 */
const utf8 = new TextEncoder();

export class StateCache {
  private readonly entries = new Map<string, { at: number; json: string; bytes: Uint8Array<ArrayBuffer> | null }>();
  constructor(
    private readonly runtime: RuntimeView,
    private readonly maxAgeMs = 50,
    /** The live market: "synthetic" or "dbn <name>" (liveDataSource). */
    private readonly dataSource = 'synthetic',
    /** The strategy the live engine runs (null: not known here). */
    private readonly strategy: LiveStrategy = null,
  ) {}

  private entry(only?: string): { at: number; json: string; bytes: Uint8Array<ArrayBuffer> | null } {
    const key = only ?? '';
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs) return hit;
    const e = { at: now, json: JSON.stringify(statePayload(this.runtime, only, this.dataSource, this.strategy)), bytes: null };
    this.entries.set(key, e);
    return e;
  }

  json(only?: string): string {
    return this.entry(only).json;
  }

  /** The same JSON as bytes, encoded once per snapshot (an answer then copies nothing). */
  bytes(only?: string): Uint8Array<ArrayBuffer> {
    const e = this.entry(only);
    e.bytes ??= utf8.encode(e.json);
    return e.bytes;
  }
}

export function registerState(app: App, ctx: ApiContext, cache: StateCache): void {
  app.get(STATE_PATH, (c) => {
    const q = c.req.query('symbol');
    if (q === undefined) return c.body(cache.bytes(), 200, STATE_HEADERS);
    const wanted = q.trim().toUpperCase();
    const symbol = ctx.runtime.symbols.find((s) => s.toUpperCase() === wanted);
    if (!symbol) return apiError(c, 404, 'unknown_symbol', `unknown symbol '${q}': this engine runs ${ctx.runtime.symbols.join(', ') || 'no symbol'}`);
    return c.body(cache.bytes(symbol), 200, STATE_HEADERS);
  });
}
