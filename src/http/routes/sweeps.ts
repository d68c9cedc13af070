// POST /api/sweeps (202 with the sweep; it runs on; Idempotency-Key as for backtests), GET
// /api/sweeps (a page, newest first), GET /api/sweeps/:id, DELETE /api/sweeps/:id (cancel).
// Progress goes to the SSE stream as `sweep_progress`.

import { bodyLimit } from 'hono/body-limit';
import type { SweepService } from '../../sweep/service.ts';
import type { ApiContext, App } from '../context.ts';
import { apiError } from '../errors.ts';
import { badCursor, idempotencyKey, jsonErrorMessage, pageQuery, requireJson } from './backtests.ts';

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
    const k = idempotencyKey(c.req.header('idempotency-key'));
    if ('error' in k) return apiError(c, 400, 'invalid_request', `invalid Idempotency-Key header: ${k.error}`, [{ field: 'Idempotency-Key', message: k.error }]);
    const out = svc.submit(body, k.key);
    switch (out.kind) {
      case 'invalid':
        return apiError(c, 400, 'invalid_request', `invalid sweep request: ${out.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, out.errors);
      case 'busy':
        return apiError(c, 503, 'busy', out.message, undefined, { 'Retry-After': String(out.retryAfterS) });
      case 'closed':
        return apiError(c, 503, 'shutting_down', 'the server is shutting down', undefined, { 'Retry-After': '5' });
      case 'key_mismatch':
        return apiError(c, 422, 'idempotency_key_mismatch', `the Idempotency-Key header names sweep ${out.id}, which was started by a different request: use a new key for a new request`, [
          { field: 'Idempotency-Key', message: `already used for sweep ${out.id} with a different request` },
        ]);
    }
    // A replayed key answers with the sweep it names: 202 while it runs, 200 once it has ended.
    const status = out.kind === 'replayed' && out.run.status !== 'running' ? 200 : 202;
    return c.json(out.run, status, { Location: `/api/sweeps/${out.run.id}` });
  });

  app.get('/api/sweeps', (c) => {
    const q = pageQuery(c);
    if (q instanceof Response) return q;
    let page;
    try {
      page = svc.list(q.limit, q.cursor);
    } catch {
      return badCursor(c, q.cursor);
    }
    return c.json({ total: svc.total, sweeps: page.entries.map(({ idempotency: _key, ...item }) => item), next_cursor: page.nextCursor }, 200);
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
