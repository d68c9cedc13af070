// GET /api/datasets: the recorded market data under <data_dir>/market/ a backtest may replay.

import type { DatasetList } from '../../wire/datasets.ts';
import { marketDataDir } from '../../backtest/request.ts';
import { listDatasets } from '../../market/replay/dataset.ts';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';

export function registerDatasets(app: App, ctx: ApiContext): void {
  app.get('/api/datasets', (c) => {
    const dir = marketDataDir(ctx.config);
    const body: DatasetList = { dir, datasets: listDatasets(dir) };
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  });
}
