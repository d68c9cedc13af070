// An unusable data_dir stops the engine at start with one clear line and a non-zero exit, before
// any worker thread could keep the process alive without an HTTP listener (it used to hang).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE, tempDir } from '../../helpers/cli.ts';
import { within } from '../../helpers/wait.ts';

function start(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const dir = tempDir();
  const config = join(dir, 'config.toml');
  writeFileSync(config, `data_dir = ${JSON.stringify(dataDir)}\n`);
  const child = spawn(process.execPath, [ENGINE, '--config', config], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } });
  let stderr = '';
  child.stderr.on('data', (b) => (stderr += b));
  child.stdout.on('data', (b) => (stderr += b));
  const done = new Promise<{ code: number | null; stderr: string }>((res) => child.on('exit', (code) => res({ code, stderr })));
  // A hang is the failure this guards against: a generous deadline, then the child is killed.
  return within('the engine to exit', done, 60_000).finally(() => child.kill('SIGKILL'));
}

test('data_dir under a regular file (ENOTDIR): exit 1 naming the key, the path and the cause', async () => {
  const file = join(tempDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  const r = await start(join(file, 'data'));
  assert.is(r.code, 1, r.stderr);
  const line = r.stderr.split('\n').find((l) => l.includes('cannot start'));
  assert.ok(line, r.stderr);
  assert.match(JSON.parse(line!).msg, /^cannot start: data_dir = ".*not-a-dir\/data": .*ENOTDIR/);
});

test('data_dir inside /proc: exit 1, no spin', async () => {
  const r = await start('/proc/futures-mm-engine-test/data');
  assert.is(r.code, 1, r.stderr);
  const line = r.stderr.split('\n').find((l) => l.includes('cannot start'));
  assert.ok(line, r.stderr);
  assert.match(JSON.parse(line!).msg, /^cannot start: data_dir = "\/proc\/futures-mm-engine-test\/data": .*ENOENT/);
});

test.run();
