// `node dist/engine.js --strategy-check NAME|FILE [--param K=V] [--limit N] [--json]`: runs the
// strategy check (src/strategy-check/check.ts) on the first session of the config's default backtest
// request and prints its report; exit 0 when every check passes, 1 when one fails or the strategy
// cannot run, 2 for a bad parameter.

import type pino from 'pino';
import { requestModel, sessionSpecs, validateBacktestRequest } from '../backtest/request.ts';
import type { EngineConfig } from '../config/schema.ts';
import { type CheckReport, checkStrategy } from '../strategy-check/check.ts';
import { compileStrategyFile } from '../strategy/load.ts';
import { register, registeredStrategies, strategyByName } from '../strategy/registry.ts';
import type { CliOptions } from './args.ts';
import { flagOfField, requestFromFlags } from './request-flags.ts';

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
export const DEFAULT_CHECK_EVENTS = 1_000_000;

/** The registered name of the strategy the argument names: a name, or a file compiled and registered here. */
async function strategyName(arg: string): Promise<{ name: string } | { error: string }> {
  if (NAME.test(arg)) {
    if (strategyByName(arg)) return { name: arg };
    return {
      error: `--strategy-check ${arg}: no strategy of that name is loaded (loaded: ${registeredStrategies()
        .map((r) => r.def.name)
        .join(', ')}); give its file, or load it with --strategy-file`,
    };
  }
  try {
    const r = await compileStrategyFile(arg);
    register(r);
    return { name: r.def.name };
  } catch (e) {
    return { error: `--strategy-check ${arg}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export async function strategyCheckCommand(opts: CliOptions, config: EngineConfig, log: pino.Logger): Promise<number> {
  if (opts.limit === 0) {
    process.stderr.write('error: --limit 0: expected a positive number of market events for --strategy-check, e.g. 200000\n');
    return 2;
  }
  const s = await strategyName(opts.strategyCheck!);
  if ('error' in s) {
    process.stderr.write(`error: ${s.error}\n`);
    return 1;
  }
  // Without the model whatever the config's use_ml: the quiet path and the promise, which the
  // check tests, exist only without it (docs/strategy-check.md).
  const v = validateBacktestRequest(requestFromFlags({ ...opts, strategy: s.name, useMl: false }, config), config);
  if (!v.ok) {
    for (const e of v.errors) process.stderr.write(`error: ${flagOfField(e.field) ?? e.field}: ${e.message}\n`);
    return 2;
  }
  // As --backtest runs it (no fill columns or quote samples: those break quiet runs every second).
  const spec = sessionSpecs(v.request, config, false, requestModel(v.request, config))[0];
  const events = opts.limit ?? DEFAULT_CHECK_EVENTS;
  log.info({ strategy: s.name, date: spec.date, events }, 'strategy check started');
  const report = await checkStrategy(spec, events);
  log.info({ strategy: s.name, pass: report.pass }, 'strategy check finished');
  process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.pass ? 0 : 1;
}

const int = (x: number) => x.toLocaleString('en-US');

export function formatReport(r: CheckReport): string {
  const st = r.strategy;
  const params =
    Object.entries(st.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || '(none)';
  const lines = [
    `Strategy check: ${st.name} ${st.version} (sha256 ${st.hash.slice(0, 16)}, ${st.file ?? 'built-in'})`,
    `  parameters        ${params}`,
    `  session           ${r.session.root} ${r.session.date} seed ${r.session.seed}, its first ${int(r.session.events)} market events ` +
      `(recorded once, replayed by every run)`,
  ];
  const first = r.runs.thread[0];
  if (first) lines.push(`  traded            ${int(first.ordersSent)} orders, ${int(first.fills)} fills in the first session`);
  if (r.error !== null) lines.push(`  error             ${r.error}`);
  for (const v of r.verdicts) lines.push(`  ${v.check.padEnd(17)} ${v.status.toUpperCase().padEnd(12)} ${v.detail}`);
  const c = r.cost;
  if (c) {
    lines.push(
      `  cost              ${c.cpuNsPerEvent.toFixed(1)} ns/event CPU (${c.wallNsPerEvent.toFixed(1)} wall), ${c.gcs} ` +
        `GC${c.gcs === 1 ? '' : 's'}, ${c.allocatedBytesPerEvent.toFixed(1)} B/event allocated, ${(100 * c.quietShare).toFixed(1)} % of ` +
        `events on the quiet path` +
        ` (the third session in its thread, ${int(c.events)} events; measured on this machine, not judged)`,
    );
  }
  const failed = r.verdicts.filter((v) => v.status === 'fail' || v.status === 'inconclusive').map((v) => v.check);
  lines.push(r.pass ? 'PASS' : `FAIL: ${r.error !== null ? 'the strategy did not run' : failed.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
