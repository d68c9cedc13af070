// GET /api/backtests/:id/{fills.csv,fills.parquet,equity.csv,report}: research artifacts of a
// completed run, recomputed from its stored resolved request (see ARTIFACTS_DESCRIPTION). The
// recomputation runs on its own short-lived Piscina pool, so the event loop stays free.
// ARTIFACTS_DESCRIPTION (src/api/backtest-artifacts.ts) says why recompute rather than store.

import { availableParallelism } from 'node:os';
import { BACKTEST_ARTIFACTS, type ArtifactSpec } from '../../api/backtest-artifacts.ts';
import { modelForRequest, type ResolvedRequest } from '../../backtest/request.ts';
import { createBacktestPool, runBacktest, type BacktestRun } from '../../backtest/run.ts';
import type { BacktestService } from '../../backtest/service.ts';
import type { BacktestResult } from '../../api/backtest-run.ts';
import type { EngineConfig } from '../../config/schema.ts';
import { equityFile, fillsFile, reportFile } from '../../research/artifacts.ts';
import type { ApiContext, App } from '../context.ts';
import { ApiError } from '../errors.ts';

/** The stored run, through the service's public lookup only (its storage is its own business). */
async function completedRun(svc: BacktestService, id: string): Promise<{ resolved: ResolvedRequest; result: BacktestResult }> {
  const rec = await svc.read(id);
  if (!rec) throw new ApiError(404, 'not_found', `no backtest run with id '${id}'`);
  if (rec.status !== 'completed' || !rec.result) throw new ApiError(409, 'conflict', `backtest ${id} is ${rec.status}: artifacts exist only for completed runs`);
  return { resolved: rec.resolved, result: rec.result };
}

function checkModel(id: string, req: ResolvedRequest, config: EngineConfig): void {
  if (!req.useML) return;
  const m = modelForRequest(req.root, config);
  if (!m.ok) throw new ApiError(409, 'conflict', `backtest ${id} used model ${req.model?.version}, which cannot be loaded now: ${m.error}`);
  if (m.model.modelVersion !== req.model?.version) {
    throw new ApiError(409, 'conflict', `backtest ${id} used model ${req.model?.version}; the current model is ${m.model.modelVersion}, so the run cannot be recomputed`);
  }
}

/** The figures a recomputation must reproduce exactly, or it is not the same run. */
const FINGERPRINT = ['events_processed', 'total_fills', 'total_pnl', 'final_position'] as const;

export function registerBacktestArtifacts(app: App, ctx: ApiContext): void {
  let busy = false;
  let last: { id: string; run: BacktestRun; req: ResolvedRequest } | null = null;

  async function recompute(id: string): Promise<{ run: BacktestRun; req: ResolvedRequest }> {
    if (last?.id === id) return last;
    const stored = await completedRun(ctx.backtests, id);
    checkModel(id, stored.resolved, ctx.config);
    if (busy) throw new ApiError(503, 'busy', 'another run\'s artifacts are being computed', undefined, { 'Retry-After': '5' });
    busy = true;
    const pool = createBacktestPool(Math.min(ctx.config.backtest.pool_size || availableParallelism(), stored.resolved.dates.length));
    try {
      // A copy: the stored request stays untouched, and no model is cached against it.
      const req = { ...stored.resolved };
      const run = await runBacktest(req, ctx.config, { pool, collectFills: true });
      const differs = FINGERPRINT.filter((k) => run.result[k] !== stored.result[k]);
      if (differs.length) {
        const what = differs.map((k) => `${k} ${stored.result[k]} -> ${run.result[k]}`).join(', ');
        throw new ApiError(409, 'conflict', `backtest ${id} does not recompute to its stored result (${what}): the config changed since it ran`);
      }
      last = { id, run, req };
      return last;
    } finally {
      busy = false;
      await pool.destroy();
    }
  }

  const body = (a: ArtifactSpec, req: ResolvedRequest, run: BacktestRun): string | Uint8Array => {
    switch (a.name) {
      case 'fills.csv':
        return fillsFile(req, run, 'csv');
      case 'fills.parquet':
        return fillsFile(req, run, 'parquet');
      case 'equity.csv':
        return equityFile(run, 'csv');
      case 'report':
        return reportFile(req, run, ctx.config);
    }
  };

  for (const a of BACKTEST_ARTIFACTS) {
    app.get(`/api/backtests/:id/${a.name}`, async (c) => {
      const id = c.req.param('id');
      const { run, req } = await recompute(id);
      const data = body(a, req, run);
      const headers: Record<string, string> = { 'Content-Type': a.contentType };
      if (a.name !== 'report') headers['Content-Disposition'] = `attachment; filename="${id}-${a.name}"`;
      return c.body(data as string, 200, headers);
    });
  }
}
