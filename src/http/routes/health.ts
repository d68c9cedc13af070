// GET /health: 200 {status: "ok"} when every worker is healthy and the backtest and sweep
// journals are writable (their last writes succeeded) and the session queue, if any, answers;
// else 503 {status: "degraded"}.

import type { Health } from '../../wire/health.ts';
import type { HealthView } from '../../runtime/view.ts';
import { VERSION } from '../../version.ts';
import { uptimeSeconds, type ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';

export function registerHealth(app: App, ctx: ApiContext): void {
  app.get('/health', (c) => {
    let h: HealthView;
    try {
      h = ctx.runtime.health();
    } catch (e) {
      ctx.logger.error({ err: e }, 'runtime.health() failed');
      h = { healthy: false, workers: [] };
    }
    const storage = ctx.backtests.storageHealth();
    const sweepStorage = ctx.sweeps.storageHealth();
    const queue = ctx.backtests.executor?.health?.() ?? null;
    const healthy = h.healthy && storage.status === 'ok' && sweepStorage.status === 'ok' && (queue === null || queue.status === 'ok');
    const body: Health = {
      status: healthy ? 'ok' : 'degraded',
      version: VERSION,
      uptime_s: uptimeSeconds(ctx.runtime),
      workers: h.workers.map((w) => ({ name: w.name, state: w.state, heartbeat_age_ms: w.heartbeatAgeMs, restarts: w.restarts, last_error: w.lastError })),
      backtests: {
        running: ctx.backtests.running,
        queued_sessions: ctx.backtests.queuedSessions,
        max_queued_sessions: ctx.backtests.maxQueuedSessions,
        pool_size: ctx.backtests.poolSize,
      },
      storage,
      sweep_storage: sweepStorage,
      queue,
      sse_clients: ctx.hub.size,
    };
    return c.json(body, healthy ? 200 : 503, { 'Cache-Control': 'no-store' });
  });
}
