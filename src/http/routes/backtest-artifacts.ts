// GET /api/backtests/:id/{fills.csv,fills.parquet,equity.csv,orders.*,quotes.*,report}: research artifacts of a
// completed run, recomputed from its stored resolved request (see ARTIFACTS_DESCRIPTION). The
// recomputation is admitted by cost like a run (its sessions count against [backtest]
// max_queued_sessions) and runs on the runs' pool, so the event loop stays free; the results are
// kept in a bounded cache (artifact-cache.ts), and the GETs count against the rate limit.
// ARTIFACTS_DESCRIPTION (src/wire/backtest-artifacts.ts) says why recompute rather than store.

import { BACKTEST_ARTIFACTS } from '../../wire/backtest-artifacts.ts';
import { modelForRequest, type ResolvedRequest } from '../../backtest/request.ts';
import { runBacktest, type BacktestRun } from '../../backtest/run.ts';
import type { BacktestService } from '../../backtest-service/service.ts';
import type { BacktestResult } from '../../wire/backtest-run.ts';
import type { EngineConfig } from '../../config/schema.ts';
import { equityFile, fillsFile, ordersFile, quotesFile, reportFile } from '../../research/artifacts.ts';
import { type ArtifactBodies, ArtifactCache } from '../artifact-cache.ts';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';
import { ApiError } from '../errors.ts';

/** The stored run, through the service's public lookup only (its storage is its own business). */
async function completedRun(svc: BacktestService, id: string): Promise<{ resolved: ResolvedRequest; result: BacktestResult }> {
  const rec = await svc.read(id);
  if (!rec) throw new ApiError(404, 'not_found', `no backtest run with id '${id}'`);
  if (rec.status !== 'completed' || !rec.result)
    throw new ApiError(409, 'conflict', `backtest ${id} is ${rec.status}: artifacts exist only for completed runs`);
  return { resolved: rec.resolved, result: rec.result };
}

function checkModel(id: string, req: ResolvedRequest, config: EngineConfig): void {
  if (!req.useML) return;
  const m = modelForRequest(req.root, config);
  if (!m.ok) throw new ApiError(409, 'conflict', `backtest ${id} used model ${req.model?.version}, which cannot be loaded now: ${m.error}`);
  if (m.model.modelVersion !== req.model?.version) {
    throw new ApiError(
      409,
      'conflict',
      `backtest ${id} used model ${req.model?.version}; the current model is ${m.model.modelVersion}, so the run cannot be recomputed`,
    );
  }
}

/** The figures a recomputation must reproduce exactly, or it is not the same run. */
const FINGERPRINT = ['events_processed', 'total_fills', 'total_pnl', 'final_position'] as const;

export function registerBacktestArtifacts(app: App, ctx: ApiContext): void {
  const svc = ctx.backtests;
  const cache = new ArtifactCache(ctx.config.backtest.artifact_cache_bytes);
  /** Recomputations in progress: concurrent GETs of one run share one. */
  const computing = new Map<string, Promise<ArtifactBodies>>();

  // All of them from one recomputation: the costly part is the run, not the rendering.
  const render = (req: ResolvedRequest, run: BacktestRun): ArtifactBodies =>
    new Map<string, string | Uint8Array>([
      ['fills.csv', fillsFile(req, run, 'csv', ctx.config)],
      ['fills.parquet', fillsFile(req, run, 'parquet', ctx.config)],
      ['equity.csv', equityFile(req, run, 'csv', ctx.config)],
      ['orders.csv', ordersFile(req, run, 'csv', ctx.config)],
      ['orders.parquet', ordersFile(req, run, 'parquet', ctx.config)],
      ['quotes.csv', quotesFile(req, run, 'csv', ctx.config)],
      ['quotes.parquet', quotesFile(req, run, 'parquet', ctx.config)],
      ['report', reportFile(req, run, ctx.config)],
    ]);

  async function recompute(id: string): Promise<ArtifactBodies> {
    const stored = await completedRun(svc, id);
    checkModel(id, stored.resolved, ctx.config);
    // Admitted like a run of as many sessions, on the runs' pool: artifact reads cannot take CPU
    // that admission has promised to runs, nor runs be refused for work admission never saw.
    const sessions = stored.resolved.dates.length;
    const release = svc.reserve(sessions);
    if (!release) {
      const retryAfterS = svc.admission.retryAfterSeconds(svc.remainingSessions);
      throw new ApiError(
        503,
        'busy',
        `recomputing backtest ${id}'s artifacts costs ${sessions} session(s), over [backtest] max_queued_sessions = ${svc.maxQueuedSessions} ` +
          `with the runs admitted; retry in about ${retryAfterS} s`,
        undefined,
        {
          'Retry-After': String(retryAfterS),
        },
      );
    }
    try {
      // A copy: the stored request stays untouched, and no model is cached against it.
      const req = { ...stored.resolved };
      const run = await runBacktest(req, ctx.config, { pool: svc.ensurePool(), collectFills: true, record: { orders: true, quotes: true } });
      const differs = FINGERPRINT.filter((k) => run.result[k] !== stored.result[k]);
      if (differs.length) {
        const what = differs.map((k) => `${k} ${stored.result[k]} -> ${run.result[k]}`).join(', ');
        throw new ApiError(409, 'conflict', `backtest ${id} does not recompute to its stored result (${what}): the config changed since it ran`);
      }
      const bodies = render(req, run);
      cache.put(id, bodies);
      return bodies;
    } finally {
      release();
    }
  }

  function artifacts(id: string): Promise<ArtifactBodies> {
    const hit = cache.get(id);
    if (hit) return Promise.resolve(hit);
    let p = computing.get(id);
    if (!p) {
      p = recompute(id).finally(() => computing.delete(id));
      computing.set(id, p);
    }
    return p;
  }

  for (const a of BACKTEST_ARTIFACTS) {
    app.get(`/api/backtests/:id/${a.name}`, async (c) => {
      const id = c.req.param('id');
      const data = (await artifacts(id)).get(a.name)!;
      const headers: Record<string, string> = { 'Content-Type': a.contentType };
      if (a.name !== 'report') headers['Content-Disposition'] = `attachment; filename="${id}-${a.name}"`;
      return c.body(data as string, 200, headers);
    });
  }
}
