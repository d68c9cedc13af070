// `engine --export-dbn OUT [--symbol ES] [--start D] [--end D] [--from HH:MM] [--to HH:MM] [--seed N] [--schema mbo|mbp-10]`:
// the synthetic sessions a backtest with the same flags would run, written as zstd DBN (v3).
// Sessions, contracts per date, seed and session hours are resolved exactly as for --backtest.
import type pino from 'pino';
import { sessionSpecs, validateBacktestRequest } from '../backtest/request.ts';
import type { EngineConfig } from '../config/schema.ts';
import { DbnError } from '../data/dbn/errors.ts';
import { type ExportSession, exportSynthetic } from '../market/dbn-export/synthetic-export.ts';
import { contractForRoot } from '../market/instruments.ts';
import type { CliOptions } from './args.ts';
import { withTimeWindow } from './time-window.ts';

const FLAG_OF_FIELD: Record<string, string> = { symbol: '--symbol', startDate: '--start', endDate: '--end', seed: '--seed' };

export async function exportDbnCommand(opts: CliOptions, fullConfig: EngineConfig, log: pino.Logger): Promise<number> {
  const windowed = withTimeWindow(opts, fullConfig);
  if ('error' in windowed) {
    process.stderr.write(`error: ${windowed.error}\n`);
    return 2;
  }
  const config = windowed.config;
  const out = opts.exportDbn as string;
  const body: Record<string, unknown> = { symbol: opts.symbol ?? config.trading.symbols[0], useML: false };
  if (opts.start) body.startDate = opts.start;
  if (opts.end) body.endDate = opts.end;
  if (opts.seed !== undefined) body.seed = opts.seed;
  const v = validateBacktestRequest(body, config);
  if (!v.ok) {
    for (const e of v.errors) process.stderr.write(`error: ${FLAG_OF_FIELD[e.field] ?? e.field}: ${e.message}\n`);
    return 2;
  }
  const req = v.request;
  const specs = sessionSpecs(req, config, false);
  const sessions: ExportSession[] = specs.map((s, i) => ({
    date: s.date,
    rawSymbol: req.contracts[i],
    spec: contractForRoot(s.root),
    seed: s.seed,
    sessionStartNs: s.sessionStartNs,
    sessionEndNs: s.sessionEndNs,
    activity: s.activity,
  }));
  const schema = opts.schema ?? 'mbo';
  const t0 = process.hrtime.bigint();
  log.info({ out, symbol: req.symbol, start: req.startDate, end: req.endDate, sessions: sessions.length, seed: req.seed, schema }, 'DBN export started');
  let r;
  try {
    r = await exportSynthetic(out, sessions, { schema, marketDataLatencyNs: specs[0].execution.latency.marketDataLatencyNs });
  } catch (e) {
    if (!(e instanceof DbnError)) throw e;
    process.stderr.write(`error: --export-dbn: ${e.message}\n`);
    return 1;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(
    `wrote ${out}: ${schema}, ${r.sessions} session${r.sessions === 1 ? '' : 's'} (${req.dates.join(', ')}), ` +
      `${r.events.toLocaleString('en-US')} L2 events as ${r.records.toLocaleString('en-US')} records\n`,
  );
  process.stderr.write(`wall time ${seconds.toFixed(2)} s\n`);
  return 0;
}
