// GET /health: 200 {status: "ok"} when every worker is healthy, else 503 {status: "degraded"}.

import type { Health } from '../../api/health.ts';
import type { HealthView } from '../../runtime/view.ts';
import { VERSION } from '../../version.ts';
import { uptimeSeconds, type ApiContext, type App } from '../context.ts';

export function registerHealth(app: App, ctx: ApiContext): void {
  app.get('/health', (c) => {
    let h: HealthView;
    try {
      h = ctx.runtime.health();
    } catch (e) {
      ctx.logger.error({ err: e }, 'runtime.health() failed');
      h = { healthy: false, workers: [] };
    }
    const body: Health = {
      status: h.healthy ? 'ok' : 'degraded',
      version: VERSION,
      uptime_s: uptimeSeconds(ctx.runtime),
      workers: h.workers.map((w) => ({ name: w.name, state: w.state, heartbeat_age_ms: w.heartbeatAgeMs, restarts: w.restarts, last_error: w.lastError })),
      backtests: { running: ctx.backtests.running, max_concurrent: ctx.backtests.maxConcurrentRuns, pool_size: ctx.backtests.poolSize },
      sse_clients: ctx.hub.size,
    };
    return c.json(body, h.healthy ? 200 : 503, { 'Cache-Control': 'no-store' });
  });
}
