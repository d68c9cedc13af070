// POST /api/sweeps (202 with the sweep; it runs on; Idempotency-Key as for backtests), GET
// /api/sweeps (a page, newest first), GET /api/sweeps/:id, GET /api/sweeps/:id/csv (the CSV
// --out FILE.csv writes, for the dashboard's link), DELETE /api/sweeps/:id (cancel).
// Progress goes to the SSE stream as `sweep_progress`.

import { sweepCsv } from '../../sweep/output.ts';
import type { SweepService } from '../../sweep/service.ts';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';
import { apiError } from '../errors.ts';
import { jsonBodyLimit, readSubmission, refusal, requestedPage, requireJson } from './submission.ts';

export function registerSweeps(app: App, ctx: ApiContext, svc: SweepService): void {
  app.post('/api/sweeps', requireJson(), jsonBodyLimit(ctx), async (c) => {
    const sub = await readSubmission(c);
    if (sub instanceof Response) return sub;
    const out = svc.submit(sub.body, sub.key);
    if (out.kind !== 'accepted' && out.kind !== 'replayed') return refusal(c, out, 'sweep', 'sweep');
    // A replayed key answers with the sweep it names: 202 while it runs, 200 once it has ended.
    const status = out.kind === 'replayed' && out.run.status !== 'running' ? 200 : 202;
    return c.json(out.run, status, { Location: `/api/sweeps/${out.run.id}` });
  });

  app.get('/api/sweeps', (c) => {
    const page = requestedPage(c, (limit, cursor) => svc.list(limit, cursor));
    if (page instanceof Response) return page;
    return c.json({ total: svc.total, sweeps: page.entries.map(({ idempotency: _key, ...item }) => item), next_cursor: page.nextCursor }, 200);
  });

  app.get('/api/sweeps/:id', (c) => {
    const id = c.req.param('id');
    const run = svc.get(id);
    return run ? c.json(run, 200) : apiError(c, 404, 'not_found', `no sweep with id '${id}'`);
  });

  app.get('/api/sweeps/:id/csv', (c) => {
    const id = c.req.param('id');
    const run = svc.get(id);
    if (!run) return apiError(c, 404, 'not_found', `no sweep with id '${id}'`);
    if (!run.result) return apiError(c, 409, 'conflict', `sweep ${id} has no points yet (status ${run.status})`);
    return c.body(sweepCsv(run.result), 200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${id}.csv"` });
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
