// `node dist/engine.js --backtest`: runs the configured symbol on synthetic data and prints the
// result. Results go to stdout and are identical for identical inputs; wall time and speed go
// to stderr (they are measurements of this machine, not of the strategy).

import { nyStamp } from '../research/report/session-axis.ts';
import type pino from 'pino';
import type { EngineConfig } from '../config/schema.ts';
import { validateBacktestRequest } from '../backtest/request.ts';
import { createBacktestPool, runBacktest } from '../backtest/run.ts';
import type { BacktestResult } from '../backtest/merge.ts';
import type { CliOptions } from './args.ts';
import { queueFromFlag } from './queue-flag.ts';
import { flagOfField, requestFromFlags } from './request-flags.ts';
import { availableParallelism } from 'node:os';
import { equityFile, fillsFile, ordersFile, quotesFile, reportFile } from '../research/artifacts.ts';
import { acceptedFormat, STDOUT, unwritableReason, writeOutput } from './output-files.ts';
import { qualityLine, warnDataQuality } from '../market/replay/quality.ts';
import { createProgress } from './progress.ts';
import { withTimeWindow } from './time-window.ts';
import { csvHeader, csvRows, FILL_COLUMNS, fillTable } from '../research/fill-table.ts';

const usd = (x: number) => `${x < 0 ? '-' : ''}$${Math.abs(x).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const int = (x: number) => x.toLocaleString('en-US');

/** What to try after a kill-switch stop, naming the config keys (and their values) that set it. */
export function killSwitchHint(r: BacktestResult, risk: EngineConfig['risk']): string | null {
  const k = r.kill_switch;
  if (!k.tripped) return null;
  const limit =
    k.rule === 'MAX_DAILY_LOSS' ? `raise [risk] max_daily_loss (now ${risk.max_daily_loss})` : `raise [risk] max_drawdown_pct (now ${risk.max_drawdown_pct})`;
  const later = k.sessions_not_traded.length ? `, or run the later sessions on their own (--start ${k.sessions_not_traded[0]})` : '';
  return `To trade on: ${limit}, or set [risk] enable_kill_switch = false to see the strategy unguarded${later}.`;
}

/** One row per session of a multi-day run (a human table: P&L rounded to cents). */
export function sessionTable(r: BacktestResult): string[] {
  const rows = r.session_results.map((s) => [
    s.date,
    s.contract,
    int(s.events),
    int(s.fills),
    usd(s.pnl),
    String(s.final_position),
    !s.traded ? 'not traded' : s.kill_switch ? 'kill switch' : 'traded',
  ]);
  const head = ['date', 'contract', 'events', 'fills', 'P&L', 'position', 'status'];
  const width = head.map((h, j) => Math.max(h.length, ...rows.map((row) => row[j].length)));
  // Text columns left, numbers right.
  const line = (cells: string[]) => `  ${cells.map((c, j) => (j < 2 || j === 6 ? c.padEnd(width[j]) : c.padStart(width[j]))).join('  ')}`.trimEnd();
  return [line(head), ...rows.map(line)];
}

export function formatSummary(r: BacktestResult, risk?: EngineConfig['risk']): string {
  const m = r.markouts;
  const mk = (k: string) => (m[k].avg_ticks === null ? 'n/a' : `${m[k].avg_ticks!.toFixed(3)} ticks`);
  const rows: [string, string][] = [
    ['events processed', int(r.events_processed)],
    ['total P&L', usd(r.total_pnl)],
    ['max drawdown', `${r.max_drawdown_pct.toFixed(4)} %`],
    [r.sharpe_basis === 'daily' ? 'Sharpe ratio (daily)' : 'Sharpe ratio (1-min)', r.sharpe_ratio.toFixed(4)],
    ['win rate', `${(r.win_rate * 100).toFixed(2)} %`],
    ['profit factor', r.profit_factor === null ? 'n/a (no losing trade)' : r.profit_factor.toFixed(4)],
    ['closed trades', int(r.total_trades)],
    ['fills', int(r.total_fills)],
    ['volume (contracts)', int(r.volume)],
    ['fees paid', usd(r.fees)],
    ['orders sent', int(r.orders_sent)],
    ['cancels sent', int(r.cancels_sent)],
    ['final position', String(r.final_position)],
    ['markout +100ms', mk('100ms')],
    ['markout +1s', mk('1s')],
    ['markout +10s', mk('10s')],
    ['markout +60s', mk('60s')],
    ['kill switch', killSwitchLine(r.kill_switch)],
    ...(r.data_quality ? [['data quality', qualityLine(r.data_quality)] as [string, string]] : []),
  ];
  const head =
    `Backtest ${r.symbol} ${r.start_date}..${r.end_date}: ${r.sessions} session${r.sessions === 1 ? '' : 's'}, seed ${r.seed}, ML ` +
    `${r.use_ml ? 'on' : 'off'}${r.data_source === 'synthetic' ? '' : `, market ${r.data_source}`}`;
  // A run its kill switch stopped is not a plain success: say so first, and when and why.
  const stopped = r.kill_switch.tripped ? [`STOPPED by the kill switch: ${killSwitchLine(r.kill_switch)}`] : [];
  const perSession = r.session_results.length > 1 ? ['', 'Sessions:', ...sessionTable(r)] : [];
  const hint = risk ? killSwitchHint(r, risk) : null;
  return [head, ...stopped, ...rows.map(([k, v]) => `  ${k.padEnd(20)} ${v}`), ...perSession, ...(hint ? ['', hint] : [])].join('\n') + '\n';
}

function killSwitchLine(k: BacktestResult['kill_switch']): string {
  if (!k.tripped) return 'not tripped';
  const skipped = k.sessions_not_traded.length;
  // New York time, as people read CME times; the JSON keeps the UTC instant.
  return (
    `tripped at ${k.at ? nyStamp(Date.parse(k.at), true) : 'n/a'} (session ${k.session_date}, ${k.rule}, equity ` +
    `${usd(k.equity ?? NaN)})${skipped ? `; ${skipped} later session${skipped === 1 ? '' : 's'} not traded` : ''}`
  );
}

export async function backtestCommand(opts: CliOptions, fullConfig: EngineConfig, log: pino.Logger): Promise<number> {
  const windowed = withTimeWindow(opts, fullConfig);
  if ('error' in windowed) {
    process.stderr.write(`error: ${windowed.error}\n`);
    return 2;
  }
  const config = windowed.config;
  const v = validateBacktestRequest(requestFromFlags(opts, config), config, opts.data ?? null);
  if (!v.ok) {
    for (const e of v.errors) process.stderr.write(`error: ${flagOfField(e.field) ?? e.field}: ${e.message}\n`);
    return 2;
  }
  const req = v.request;
  // Every output path is checked before the run: a typo must not cost the whole backtest.
  const outputs = (['fills', 'equity', 'orders', 'quotes', 'report'] as const).filter((k) => opts[k] !== undefined);
  const unwritable = outputs.map((k) => unwritableReason(`--${k}`, opts[k]!)).filter((m) => m !== undefined);
  if (unwritable.length) {
    for (const m of unwritable) process.stderr.write(`error: ${m}\n`);
    return 2;
  }
  // With an output on stdout, stdout carries only that output; the summary goes to stderr.
  const summaryTo = outputs.some((k) => opts[k] === STDOUT) ? process.stderr : process.stdout;
  // --queue: the sessions run on BullMQ queue workers; the chaining and the merge stay here.
  const queue = await queueFromFlag(opts.queue, config);
  if ('exit' in queue) return queue.exit;
  const executor = queue.executor;
  const poolSize = config.backtest.pool_size || availableParallelism();
  const pool = executor ? null : createBacktestPool(Math.min(poolSize, req.dates.length));
  const t0 = process.hrtime.bigint();
  const progress = createProgress(opts.progress === true);
  // `--fills -` streams: the header now, each session's rows once its result is final. A reader
  // that stops early (`| head`) closes the pipe; the next write fails with EPIPE and that stops
  // the run, instead of computing sessions nobody reads.
  const stdoutClosed = new AbortController();
  const streamFills = opts.fills === STDOUT;
  let streamed = 0;
  if (streamFills) {
    process.stdout.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? stdoutClosed.abort() : undefined));
    process.stdout.write(csvHeader(FILL_COLUMNS));
  }
  try {
    log.info(
      { symbol: req.symbol, start: req.startDate, end: req.endDate, sessions: req.dates.length, seed: req.seed, use_ml: req.useML, model: req.model },
      'backtest started',
    );
    let run;
    try {
      run = await runBacktest(req, config, {
        pool,
        executor,
        collectFills: Boolean(opts.fills || opts.report),
        // Recorded only when asked: the hot path of a plain run is untouched.
        record: opts.orders || opts.quotes ? { orders: opts.orders !== undefined, quotes: opts.quotes !== undefined } : undefined,
        onProgress: (f, p) => p && progress.update(f, p),
        signal: stdoutClosed.signal,
        onSession: streamFills
          ? (s) => {
              streamed++;
              if (!stdoutClosed.signal.aborted) process.stdout.write(csvRows(fillTable(req, [s])));
            }
          : undefined,
      });
    } catch (e) {
      if (!stdoutClosed.signal.aborted) throw e;
      progress.stop();
      process.stderr.write(
        `stdout was closed by its reader: run stopped after ${streamed} of ${req.dates.length} session${req.dates.length === 1 ? '' : 's'}\n`,
      );
      return 0;
    }
    progress.stop();
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const r = run.result;
    if (opts.fills && !streamFills) writeOutput(opts.fills, fillsFile(req, run, acceptedFormat('--fills', opts.fills), config));
    if (opts.equity) writeOutput(opts.equity, equityFile(req, run, acceptedFormat('--equity', opts.equity), config));
    if (opts.orders) writeOutput(opts.orders, ordersFile(req, run, acceptedFormat('--orders', opts.orders), config));
    if (opts.quotes) writeOutput(opts.quotes, quotesFile(req, run, acceptedFormat('--quotes', opts.quotes), config));
    if (opts.report) writeOutput(opts.report, reportFile(req, run, config));
    summaryTo.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : formatSummary(r, config.risk));
    const eps = r.events_processed / (wallMs / 1000);
    process.stderr.write(
      `wall time ${(wallMs / 1000).toFixed(2)} s, ${int(Math.round(eps))} events/s ` +
        `${executor ? `on the queue ${opts.queue}` : `over ${Math.min(poolSize, req.dates.length)} worker(s)`}\n`,
    );
    log.info({ total_pnl: r.total_pnl, events: r.events_processed, wall_ms: Math.round(wallMs) }, 'backtest finished');
    warnDataQuality((o, m) => log.warn(o, m), r.session_results);
    return 0;
  } finally {
    progress.stop();
    await pool?.destroy();
    await executor?.close();
  }
}
