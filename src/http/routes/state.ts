// GET /api/state[?symbol=X]: the live state of every symbol (or one). The stream's `state` event
// carries the same payload.

import type { RuntimeView, SymbolState } from '../../runtime/view.ts';
import { VERSION } from '../../version.ts';
import { uptimeSeconds, type ApiContext, type App } from '../context.ts';
import { apiError } from '../errors.ts';

export interface StatePayload {
  version: string;
  uptime_s: number;
  symbols: string[];
  states: Record<string, SymbolState>;
}

export function statePayload(runtime: RuntimeView, only?: string): StatePayload {
  const symbols: string[] = [];
  const states: Record<string, SymbolState> = {};
  for (const s of only === undefined ? runtime.symbols : [only]) {
    const st = runtime.state(s);
    if (st) {
      symbols.push(s);
      states[s] = st;
    }
  }
  return { version: VERSION, uptime_s: uptimeSeconds(runtime), symbols, states };
}

export function registerState(app: App, ctx: ApiContext): void {
  app.get('/api/state', (c) => {
    const q = c.req.query('symbol');
    if (q === undefined) return c.json(statePayload(ctx.runtime), 200, { 'Cache-Control': 'no-store' });
    const wanted = q.trim().toUpperCase();
    const symbol = ctx.runtime.symbols.find((s) => s.toUpperCase() === wanted);
    if (!symbol) return apiError(c, 404, 'unknown_symbol', `unknown symbol '${q}': this engine runs ${ctx.runtime.symbols.join(', ') || 'no symbol'}`);
    return c.json(statePayload(ctx.runtime, symbol), 200, { 'Cache-Control': 'no-store' });
  });
}
