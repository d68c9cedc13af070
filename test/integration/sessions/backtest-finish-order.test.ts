// A finished run becomes visible to readers only once it is journaled and counted: a client that
// polls GET /api/backtests/{id} until it is no longer `running` must then find it on disk and in
// the metrics (CI once saw `completed` before engine_backtest_duration_seconds counted it).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BacktestResult } from '../../../src/backtest/merge.ts';
import { BacktestService, type Runner } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { createLogger } from '../../../src/log.ts';

const dir = mkdtempSync(join(tmpdir(), 'bt-finish-'));
const logger = createLogger({ env: {}, configLevel: 'error' });
const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n`, 'finish.toml');
test.after(() => rmSync(dir, { recursive: true, force: true }));

// A large result makes the final journal write take long enough for a poller to look in between.
const result = {
  symbol: 'ES',
  total_pnl: 1,
  equity_curve: Array.from({ length: 500 }, (_, i) => ({ t: i * 60_000, equity: 100_000 + i })),
  alerts: Array.from({ length: 2_000 }, (_, i) => ({ ts: i, date: '2024-01-02', level: 'warning', message: `alert ${i} `.repeat(10) })),
} as unknown as BacktestResult;
const instant: Runner = async () => ({ result });

for (const outcome of ['completed', 'cancelled'] as const) {
  test(`a ${outcome} run is journaled and counted before any reader sees it finished`, async () => {
    const svc = await BacktestService.open({ config, logger, dataDir: join(dir, outcome), runner: instant });
    const finished: string[] = [];
    svc.observer = { onFinished: (status) => finished.push(status) };
    try {
      for (let i = 0; i < 20; i++) {
        const out = svc.submit({ symbol: 'ES', useML: false });
        if (out.kind !== 'accepted') throw new Error(JSON.stringify(out));
        if (outcome === 'cancelled') svc.cancel(out.id);
        let seen = 'running';
        while (seen === 'running') {
          await new Promise((r) => setImmediate(r));
          const rec = await svc.read(out.id);
          seen = rec?.status ?? 'unknown';
          if (seen !== 'running') {
            assert.is(finished.length, i + 1, `run ${i}: read as ${seen} before it was counted`);
            assert.ok(existsSync(join(dir, outcome, 'backtests', `${out.id}.jsonl`)));
            assert.is(svc.entry(out.id)?.status, seen, 'the index agrees');
          }
        }
        assert.is(seen, outcome);
        await out.done;
      }
    } finally {
      await svc.close();
    }
  });
}

test.run();
