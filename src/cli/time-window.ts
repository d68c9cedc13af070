// `--from HH:MM --to HH:MM` (New York time): a time window within the configured session, for
// --backtest and --export-dbn, instead of a copied config with other session hours. The window
// becomes the run's session hours: `--to` ends each session early, and the synthetic market up
// to it is the full session's, event for event (the generator runs forward from the open);
// `--from` opens the session later, and the synthetic market then starts there from the day's
// seed, as a session opening at that time would (it is not the full session's state at that
// time). Recorded data (--data) is replayed within the window as recorded.
import type { EngineConfig } from '../config/schema.ts';
import { parseClock } from '../market/calendar.ts';
import type { CliOptions } from './args.ts';

/** The config with the window's session hours, or an error naming the flag. */
export function withTimeWindow(opts: Pick<CliOptions, 'from' | 'to'>, config: EngineConfig): { config: EngineConfig } | { error: string } {
  if (opts.from === undefined && opts.to === undefined) return { config };
  const sim = config.simulation;
  const open = parseClock(sim.session_start)!;
  const close = parseClock(sim.session_end)!;
  const session = `the session ${sim.session_start}..${sim.session_end} ([simulation] session_start..session_end)`;
  const from = opts.from ?? sim.session_start;
  const to = opts.to ?? sim.session_end;
  const fromNs = parseClock(from)!;
  const toNs = parseClock(to)!;
  if (opts.from !== undefined && (fromNs < open || fromNs >= close))
    return { error: `--from ${opts.from}: outside ${session}: expected a time from ${sim.session_start} to before ${sim.session_end}` };
  if (opts.to !== undefined && (toNs <= open || toNs > close))
    return { error: `--to ${opts.to}: outside ${session}: expected a time after ${sim.session_start} up to ${sim.session_end}` };
  if (toNs <= fromNs) return { error: `--to ${to} is not after --from ${from}: expected a window of at least one minute` };
  return { config: { ...config, simulation: { ...sim, session_start: from, session_end: to } } };
}
