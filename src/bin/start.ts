// `npm start` (node dist/start.js [engine args...]): runs the engine and the dashboard together as
// child processes, each with its own output (JSON log lines) on this process's stdout/stderr.
//
// - Arguments are passed to the engine (e.g. `npm start -- --config config/my.toml`).
// - The dashboard reaches the engine at ENGINE_URL, else http://127.0.0.1:$PORT (the engine's own
//   port override), else http://127.0.0.1:9090 (the default metrics_port).
// - SIGINT/SIGTERM are forwarded to both; a second signal is forwarded again (the children treat it
//   as "now"), and a child still running 10 s after the first signal is killed.
// - If one child exits on its own, the other is stopped too (a dashboard without its engine, or
//   an engine nobody can see, is not what `npm start` promises). The exit code is the first
//   non-zero child exit code (128 + signal number for a child killed by a signal), else 0.
// The children run in their own process groups, so a terminal's Ctrl-C reaches them once, from
// here, instead of twice.

import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const KILL_AFTER_MS = 10_000;

interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number>;
}

function engineUrl(env: NodeJS.ProcessEnv): string {
  if (env.ENGINE_URL && env.ENGINE_URL.trim() !== '') return env.ENGINE_URL.trim();
  const port = env.PORT && /^\d+$/.test(env.PORT.trim()) ? env.PORT.trim() : '9090';
  return `http://127.0.0.1:${port}`;
}

function say(msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), pid: process.pid, component: 'start', ...fields, msg })}\n`);
}

function run(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn(process.execPath, [join(here, script), ...args], { env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const exited = new Promise<number>((resolve) => {
    proc.once('error', (e) => {
      say(`${name} failed to start: ${e.message}`, { child: name });
      resolve(1);
    });
    proc.once('exit', (code, signal) => {
      const n = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
      say(`${name} exited`, { child: name, code, signal });
      resolve(n);
    });
  });
  return { name, proc, exited };
}

function alive(c: Child): boolean {
  return c.proc.exitCode === null && c.proc.signalCode === null && c.proc.pid !== undefined;
}

async function main(): Promise<number> {
  const env = { ...process.env };
  const url = engineUrl(env);
  const engine = run('engine', 'engine.js', process.argv.slice(2), env);
  const dashboard = run('dashboard', 'dashboard.js', [], { ...env, ENGINE_URL: url });
  const children = [engine, dashboard];
  say(`started engine (pid ${engine.proc.pid}) and dashboard (pid ${dashboard.proc.pid}, engine at ${url})`, {
    engine_pid: engine.proc.pid,
    dashboard_pid: dashboard.proc.pid,
    engine_url: url,
  });

  let stopping = false;
  let killTimer: NodeJS.Timeout | null = null;
  const stopAll = (signal: NodeJS.Signals) => {
    for (const c of children) if (alive(c)) c.proc.kill(signal);
    if (!killTimer) {
      killTimer = setTimeout(() => {
        for (const c of children) {
          if (alive(c)) {
            say(`${c.name} still running ${KILL_AFTER_MS / 1000} s after the stop signal: killing it`, { child: c.name });
            c.proc.kill('SIGKILL');
          }
        }
      }, KILL_AFTER_MS);
      killTimer.unref();
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    say(`${signal} received: stopping engine and dashboard`, { signal });
    stopping = true;
    stopAll(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Never leave orphans behind, whatever ends this process.
  process.on('exit', () => {
    for (const c of children) if (alive(c)) c.proc.kill('SIGKILL');
  });

  const codes: number[] = [];
  // Whichever exits first on its own takes the other down with it.
  const first = await Promise.race(children.map((c) => c.exited.then((code) => ({ c, code }))));
  codes.push(first.code);
  if (!stopping) {
    say(`${first.c.name} exited on its own (code ${first.code}): stopping the other`, { child: first.c.name, code: first.code });
    stopping = true;
    stopAll('SIGTERM');
  }
  const other = children.find((c) => c !== first.c)!;
  codes.push(await other.exited);
  if (killTimer) clearTimeout(killTimer);
  return codes.find((x) => x !== 0) ?? 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
