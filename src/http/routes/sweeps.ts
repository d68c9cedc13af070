// POST /api/sweeps (202 with the sweep; it runs on), GET /api/sweeps/:id, DELETE /api/sweeps/:id
// (cancel). Progress goes to the SSE stream as `sweep_progress`.

import { bodyLimit } from 'hono/body-limit';
import type { SweepService } from '../../sweep/service.ts';
import type { ApiContext, App } from '../context.ts';
import { apiError } from '../errors.ts';
import { jsonErrorMessage, requireJson } from './backtests.ts';

export function registerSweeps(app: App, ctx: ApiContext, svc: SweepService): void {
  const limit = bodyLimit({
    maxSize: ctx.maxBodyBytes,
    onError: (c) => apiError(c, 413, 'payload_too_large', `the request body is larger than ${ctx.maxBodyBytes} bytes`, undefined, { Connection: 'close' }),
  });

  app.post('/api/sweeps', requireJson(), limit, async (c) => {
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return apiError(c, 400, 'invalid_json', jsonErrorMessage(e, text));
    }
    const out = svc.submit(body);
    switch (out.kind) {
      case 'invalid':
        return apiError(c, 400, 'invalid_request', `invalid sweep request: ${out.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, out.errors);
      case 'busy':
        return apiError(c, 503, 'busy', out.message, undefined, { 'Retry-After': String(out.retryAfterS) });
      case 'closed':
        return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
    }
    return c.json(out.run, 202, { Location: `/api/sweeps/${out.run.id}` });
  });

  app.get('/api/sweeps/:id', (c) => {
    const id = c.req.param('id');
    const run = svc.get(id);
    return run ? c.json(run, 200) : apiError(c, 404, 'not_found', `no sweep with id '${id}'`);
  });

  app.delete('/api/sweeps/:id', async (c) => {
    const id = c.req.param('id');
    const run = svc.get(id);
    if (!run) return apiError(c, 404, 'not_found', `no sweep with id '${id}'`);
    const done = svc.whenDone(id);
    if (!done || !svc.cancel(id)) return apiError(c, 409, 'conflict', `sweep ${id} is not running (status ${run.status})`);
    return c.json(await done, 200);
  });
}
