// One engine server per data_dir (issue 46, §3): a second server on the same directory exits 1
// with one line naming the directory and the holder's pid and touches nothing there (it used to
// recover the live engine's journal: running runs marked interrupted, temp files deleted); a lock
// left by a killed engine does not block the next start. Through the built engine, then the
// lock's staleness rules at unit level.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DataDirLocked, LOCK_FILE, lockDataDir } from '../../../src/core/data-dir-lock.ts';
import { ENGINE, tempDir } from '../../helpers/cli.ts';
import { WAIT_MS, within } from '../../helpers/wait.ts';

interface Engine {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

/** Starts the engine on `dataDir`; resolves once it listens or exits. */
async function start(dataDir: string): Promise<Engine & { port: number | null }> {
  const dir = tempDir();
  const config = join(dir, 'config.toml');
  writeFileSync(config, `data_dir = ${JSON.stringify(dataDir)}\n[backtest]\npool_size = 1\n`);
  const child = spawn(process.execPath, [ENGINE, '--config', config], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', QUEUE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const port = await within(
    'the engine to listen or exit',
    new Promise<number | null>((resolve) => {
      let buf = '';
      const onData = (d: Buffer) => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          lines.push(line);
          buf = buf.slice(i + 1);
          const m = /listening on http:\/\/[^:]+:(\d+)/.exec(line);
          if (m) resolve(Number(m[1]));
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then(() => resolve(null));
    }),
    WAIT_MS,
  );
  return { child, lines, exited, port };
}

/** Every file under `dir` with its bytes, for "left as it was found". */
function tree(dir: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip.includes(r)) continue;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else out[r] = readFileSync(join(d, e.name), 'base64');
    }
  };
  walk(dir, '');
  return out;
}

test('a second engine on a locked data_dir exits 1 with one line naming it and the holder, touching nothing; a killed holder does not block', async () => {
  const data = join(tempDir(), 'data');
  const a = await start(data);
  let c: Awaited<ReturnType<typeof start>> | null = null;
  try {
    assert.ok(a.port, a.lines.join('\n'));
    const holder = JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')) as { pid: number };
    assert.is(holder.pid, a.child.pid);
    // An in-flight temp file of the live engine: a recovering second engine would delete it.
    const tmp = join(data, 'backtests', `bt_inflight.jsonl.${a.child.pid}.tmp`);
    writeFileSync(tmp, '{"partial":');
    const before = tree(data);

    const b = await start(data);
    assert.is(b.port, null, `the second engine must not listen:\n${b.lines.join('\n')}`);
    assert.is(await b.exited, 1);
    const errors = b.lines.filter((l) => /"level":50/.test(l) || /locked/.test(l));
    assert.is(errors.length, 1, b.lines.join('\n'));
    const msg = (JSON.parse(errors[0]) as { msg: string }).msg;
    assert.ok(msg.includes(`data_dir = ${JSON.stringify(data)} is locked by another engine (pid ${a.child.pid}`), msg);
    assert.equal(tree(data), before, 'the second engine left the directory as it found it');
    assert.ok(existsSync(tmp));
    assert.is((await fetch(`http://127.0.0.1:${a.port}/health`)).status, 200, 'the live engine is unharmed');

    // SIGKILL leaves the lock behind; its pid is dead, so the next start takes it over.
    a.child.kill('SIGKILL');
    await a.exited;
    assert.ok(existsSync(join(data, LOCK_FILE)));
    c = await start(data);
    assert.ok(c.port, `a dead holder's lock must not block:\n${c.lines.join('\n')}`);
    assert.is((JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')) as { pid: number }).pid, c.child.pid);
  } finally {
    for (const e of [a, c]) if (e && e.child.exitCode === null && e.child.signalCode === null) e.child.kill('SIGKILL');
  }
});

test('lock rules: held by a live pid, taken over from a dead pid or our own, another host by heartbeat age', async () => {
  const dir = join(tempDir(), 'data');
  mkdirSync(dir);
  const path = join(dir, LOCK_FILE);
  const write = (h: object) => writeFileSync(path, JSON.stringify({ start: null, since: '2026-01-01T00:00:00.000Z', ...h }));

  // A live process on this host (our parent) holds it.
  write({ pid: process.ppid, host: hostname() });
  try {
    await lockDataDir(dir);
    assert.unreachable('a live holder must block');
  } catch (e) {
    assert.instance(e, DataDirLocked);
    assert.is((e as DataDirLocked).holder.pid, process.ppid);
    assert.match((e as Error).message, /is locked by another engine \(pid \d+, since/);
  }

  // Dead pid (a child that has exited): taken over at once.
  const dead = spawn(process.execPath, ['-e', '0']);
  const deadPid = dead.pid!;
  await new Promise<void>((resolve) => dead.once('exit', () => resolve()));
  {
    write({ pid: deadPid, host: hostname() });
    let lock = await lockDataDir(dir);
    assert.is((JSON.parse(readFileSync(path, 'utf8')) as { pid: number }).pid, process.pid);
    lock.release();
    assert.not.ok(existsSync(path));

    // Our own pid (a container restarted as the same pid): stale.
    write({ pid: process.pid, host: hostname() });
    lock = await lockDataDir(dir);
    lock.release();

    // A live pid whose start time differs (pid reused by another process): stale, where /proc exists.
    if (existsSync(`/proc/${process.ppid}/stat`)) {
      write({ pid: process.ppid, host: hostname(), start: '1' });
      lock = await lockDataDir(dir);
      lock.release();
    }

    // Another host: its pids mean nothing here; a fresh heartbeat holds, an old one does not.
    write({ pid: 1, host: 'other-host.example' });
    const refused = await lockDataDir(dir).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(refused instanceof DataDirLocked && /on host other-host\.example/.test(refused.message), String(refused));
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    lock = await lockDataDir(dir);
    assert.ok(statSync(path).mtimeMs > old.getTime());
    lock.release();
  }
});

test.run();
