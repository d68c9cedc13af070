// Progress of a CLI backtest: a bar (cli-progress) when stderr is a terminal, JSON lines on
// stderr with --progress (for scripts), nothing otherwise (a pipe or a log file stays clean).
// The bar runs over per-mille of the run; sessions, events/s and the ETA ride in its payload.

import { SingleBar } from 'cli-progress';
import type { RunProgress } from '../backtest/run.ts';
import { stderrLog } from './held-log.ts';

export interface ProgressLine {
  sessions_done: number;
  sessions_total: number;
  events: number;
  events_per_s: number;
  /** Seconds left at the rate so far (null before anything is measured). */
  eta_s: number | null;
}

export interface ProgressView {
  update(fraction: number, run: RunProgress): void;
  stop(): void;
}

const JSON_INTERVAL_MS = 1000;

export function progressLine(fraction: number, run: RunProgress, elapsedS: number): ProgressLine {
  return {
    sessions_done: run.sessionsDone,
    sessions_total: run.sessionsTotal,
    events: run.events,
    events_per_s: elapsedS > 0 ? run.events / elapsedS : 0,
    eta_s: fraction > 0 && elapsedS > 0 ? (elapsedS * (1 - fraction)) / fraction : null,
  };
}

/** Log lines that share the bar's terminal: held while the bar is drawn. */
export interface LogGate {
  hold(): void;
  release(): void;
}

/** `json`: --progress; else a bar only if `stream` is a terminal, with `logs` held while it is drawn. */
export function createProgress(
  json: boolean,
  stream: NodeJS.WriteStream = process.stderr,
  now = () => performance.now(),
  logs: LogGate = stderrLog,
): ProgressView {
  const t0 = now();
  const elapsed = () => (now() - t0) / 1000;
  if (json) {
    let last = -Infinity;
    let pending: ProgressLine | null = null;
    const write = (l: ProgressLine) => stream.write(JSON.stringify(l) + '\n');
    return {
      update(f, run) {
        pending = progressLine(f, run, elapsed());
        // A finished session is always worth a line; in between, one a second.
        if (now() - last >= JSON_INTERVAL_MS || run.sessionsDone === run.sessionsTotal) {
          last = now();
          write(pending);
          pending = null;
        }
      },
      stop() {
        if (pending) write(pending);
        pending = null;
      },
    };
  }
  if (!stream.isTTY) return { update() {}, stop() {} };
  const bar = new SingleBar({
    stream,
    clearOnComplete: true,
    hideCursor: true,
    format: 'backtest [{bar}] {percentage}% | sessions {sessions} | {eps} events/s | ETA {etaText}',
  });
  logs.hold();
  bar.start(1000, 0, { sessions: '0/?', eps: '0', etaText: '?' });
  let running = true;
  return {
    update(f, run) {
      const l = progressLine(f, run, elapsed());
      bar.update(Math.round(f * 1000), {
        sessions: `${l.sessions_done}/${l.sessions_total}`,
        eps: Math.round(l.events_per_s).toLocaleString('en-US'),
        etaText: l.eta_s === null ? '?' : `${Math.ceil(l.eta_s)} s`,
      });
    },
    stop() {
      if (running) {
        bar.stop();
        logs.release();
      }
      running = false;
    },
  };
}
