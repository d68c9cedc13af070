// POST /api/backtest, GET /api/backtests, GET|DELETE /api/backtests/:id.
//
// A synchronous POST whose client disconnects cancels its run (nobody is left to read the
// answer); `Prefer: respond-async` answers 202 at once and the run goes on. `Idempotency-Key`
// (draft-ietf-httpapi-idempotency-key-header) makes a retried POST return the first run.

import type { Context } from 'hono';
import { toApi, toListItem, type BacktestRecord } from '../../backtest-service/service.ts';
import type { ApiContext } from '../context.ts';
import type { App, AppEnv } from '../app-env.ts';
import { apiError } from '../errors.ts';
import { jsonBodyLimit, readSubmission, refusal, requestedPage, requireJson } from './submission.ts';

function completed(c: Context<AppEnv>, rec: BacktestRecord | null) {
  if (!rec) return apiError(c, 500, 'storage_error', 'the journal file of this run is missing');
  if (rec.error?.code === 'storage_error' || rec.error?.code === 'record_too_large') {
    return apiError(c, 500, 'storage_error', `backtest ${rec.id} failed: ${rec.error.message}`);
  }
  switch (rec.status) {
    case 'completed':
      return c.json(toApi(rec), 200);
    case 'cancelled':
    case 'interrupted':
      return apiError(c, 503, 'cancelled', `backtest ${rec.id} was cancelled: ${rec.error?.message ?? 'cancelled'}`, undefined, { 'Retry-After': '5' });
    default:
      return apiError(c, 500, 'backtest_failed', `backtest ${rec.id} failed: ${rec.error?.message ?? 'unknown error'}`);
  }
}

export function registerBacktests(app: App, ctx: ApiContext): void {
  const svc = ctx.backtests;
  app.post('/api/backtest', requireJson(), jsonBodyLimit(ctx), async (c) => {
    const sub = await readSubmission(c);
    if (sub instanceof Response) return sub;
    const out = svc.submit(sub.body, sub.key);
    if (out.kind !== 'accepted' && out.kind !== 'replayed') return refusal(c, out, 'run', 'backtest');
    if (/\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      // Acknowledged only once its record is on disk: a crash after the 202 cannot lose the run.
      if (out.kind === 'accepted') {
        const failure = await out.stored;
        if (failure !== null) return refusal(c, { kind: 'storage_error', message: `backtest ${out.id} was not started: ${failure}` }, 'run', 'backtest');
      }
      const rec = await svc.read(out.id);
      if (!rec) return completed(c, null);
      const status = rec.status === 'running' ? 202 : 200;
      return c.json(toApi(rec), status, { Location: `/api/backtests/${out.id}`, 'Preference-Applied': 'respond-async' });
    }
    if (out.kind === 'accepted') {
      // Nobody is left to read the answer of a synchronous request whose client went away.
      const signal = c.req.raw.signal;
      const onAbort = () => svc.cancel(out.id, 'the client disconnected');
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      const rec = await out.done;
      signal.removeEventListener('abort', onAbort);
      return completed(c, rec);
    }
    return completed(c, await out.done);
  });

  app.get('/api/backtests', (c) => {
    const page = requestedPage(c, (limit, cursor) => svc.list(limit, cursor));
    if (page instanceof Response) return page;
    return c.json({ total: svc.total, runs: page.entries.map(toListItem), next_cursor: page.nextCursor });
  });

  app.get('/api/backtests/:id', async (c) => {
    const id = c.req.param('id');
    if (!svc.entry(id)) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    const rec = await svc.read(id);
    if (!rec) return apiError(c, 500, 'storage_error', `the journal file of backtest ${id} is missing or unreadable`);
    return c.json(toApi(rec));
  });

  app.delete('/api/backtests/:id', async (c) => {
    const id = c.req.param('id');
    const e = svc.entry(id);
    if (!e) return apiError(c, 404, 'not_found', `no backtest run with id '${id}'`);
    const done = svc.whenDone(id);
    if (!done || !svc.cancel(id)) return apiError(c, 409, 'conflict', `backtest ${id} is not running (status ${e.status})`);
    return c.json(toApi(await done));
  });
}
