// GET /metrics: Prometheus text (engine registry + Node default metrics).

import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';

export function registerMetrics(app: App, ctx: ApiContext): void {
  app.get('/metrics', async (c) => {
    const text = await ctx.metrics.text();
    return c.body(text, 200, { 'Content-Type': ctx.metrics.contentType, 'Cache-Control': 'no-store' });
  });
}
