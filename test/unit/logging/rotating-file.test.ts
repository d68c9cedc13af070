// The size-bounded rotating log file (src/logging/rotating-file.ts) and the env settings that
// turn it on, plus the exact pino wiring the engine's logger uses with it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DEFAULT_LOG_MAX_FILES, DEFAULT_LOG_MAX_SIZE_MB, logFileSettings, openLogFile, RotatingFileStream } from '../../../src/logging/rotating-file.ts';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rotating-file-'));
  dirs.push(d);
  return d;
}
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const line = (i: number, width = 100) => {
  const head = `{"i":${i},"pad":"`;
  const tail = '"}\n';
  return head + 'x'.repeat(width - head.length - tail.length) + tail;
};

test('appends whole records and rotates before the size bound is crossed', () => {
  const dir = tmp();
  const file = join(dir, 'engine.log');
  const s = new RotatingFileStream({ file, maxBytes: 1000, maxFiles: 3 });
  for (let i = 0; i < 10; i++) assert.ok(s.write(line(i)));
  assert.is(s.rotations, 0);
  assert.is(statSync(file).size, 1000, 'exactly at the bound: no rotation yet');
  s.write(line(10));
  assert.is(s.rotations, 1);
  assert.is(readFileSync(`${file}.1`, 'utf8'), Array.from({ length: 10 }, (_, i) => line(i)).join(''));
  assert.is(readFileSync(file, 'utf8'), line(10));
  s.end();
});

test('keeps at most maxFiles rotated files, newest in .1, and bounds the directory size', () => {
  const dir = tmp();
  const file = join(dir, 'engine.log');
  const s = new RotatingFileStream({ file, maxBytes: 500, maxFiles: 2 });
  for (let i = 0; i < 100; i++) s.write(line(i));
  s.end();
  assert.equal(readdirSync(dir).sort(), ['engine.log', 'engine.log.1', 'engine.log.2']);
  let total = 0;
  for (const f of readdirSync(dir)) {
    const size = statSync(join(dir, f)).size;
    assert.ok(size <= 500, `${f} is ${size} bytes`);
    total += size;
  }
  assert.ok(total <= 3 * 500);
  // 100 records of 100 bytes, 5 per file: the active file holds 95..99, .1 90..94, .2 85..89.
  const first = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8').split('\n')[0]).i;
  assert.is(first('engine.log'), 95);
  assert.is(first('engine.log.1'), 90);
  assert.is(first('engine.log.2'), 85);
  // Every surviving record is a complete JSON line.
  for (const f of readdirSync(dir)) {
    for (const l of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)) JSON.parse(l);
  }
});

test('maxFiles 0 starts the file over; an oversized record is written whole, alone', () => {
  const dir = tmp();
  const file = join(dir, 'engine.log');
  const s = new RotatingFileStream({ file, maxBytes: 250, maxFiles: 0 });
  s.write(line(0));
  s.write(line(1));
  s.write(line(2)); // would be 300 bytes: start over
  assert.is(readFileSync(file, 'utf8'), line(2));
  const big = line(3, 1000);
  s.write(big);
  assert.is(readFileSync(file, 'utf8'), big, 'a record larger than the bound is never split');
  s.write(line(4));
  assert.is(readFileSync(file, 'utf8'), line(4));
  assert.equal(readdirSync(dir), ['engine.log']);
  s.end();
});

test('appends to an existing file and counts its size toward the bound', () => {
  const dir = tmp();
  const file = join(dir, 'engine.log');
  writeFileSync(file, line(0) + line(1));
  const s = new RotatingFileStream({ file, maxBytes: 300, maxFiles: 1 });
  assert.is(s.size, 200);
  s.write(line(2));
  s.write(line(3));
  assert.is(s.rotations, 1);
  assert.is(readFileSync(`${file}.1`, 'utf8'), line(0) + line(1) + line(2));
  s.end();
  assert.not.ok(s.write(line(4)), 'writes after end() are ignored');
  assert.is(readFileSync(file, 'utf8'), line(3));
});

test('creates the directory; multi-byte characters are counted in bytes', () => {
  const dir = join(tmp(), 'nested', 'logs');
  const file = join(dir, 'engine.log');
  const s = new RotatingFileStream({ file, maxBytes: 10, maxFiles: 1 });
  s.write('€€€\n'); // 10 bytes
  assert.is(s.size, 10);
  s.write('€\n');
  assert.is(s.rotations, 1);
  s.end();
});

test('write errors never throw: the record is dropped, reported once, and logging recovers', () => {
  const dir = tmp();
  const logDir = join(dir, 'logs');
  const file = join(logDir, 'engine.log');
  const errors: Error[] = [];
  const s = new RotatingFileStream({ file, maxBytes: 150, maxFiles: 1, onError: (e) => errors.push(e) });
  s.write(line(0));
  // Make rotation impossible: the directory disappears and a plain file takes its name.
  rmSync(logDir, { recursive: true, force: true });
  writeFileSync(logDir, 'not a directory');
  assert.not.ok(s.write(line(1)));
  assert.not.ok(s.write(line(2)));
  assert.is(errors.length, 1, 'one report per run of failures');
  assert.is(s.droppedRecords, 2);
  // The operator fixes the directory: the next write succeeds again.
  rmSync(logDir);
  mkdirSync(logDir);
  assert.ok(s.write(line(3)));
  assert.is(readFileSync(file, 'utf8'), line(3));
  s.end();
});

test('rejects a nonsensical bound', () => {
  const file = join(tmp(), 'engine.log');
  assert.throws(() => new RotatingFileStream({ file, maxBytes: 0, maxFiles: 1 }), /maxBytes/);
  assert.throws(() => new RotatingFileStream({ file, maxBytes: 10, maxFiles: 1.5 }), /maxFiles/);
});

test('logFileSettings: LOG_DIR turns the file on; size and count with defaults and warnings', () => {
  assert.equal(logFileSettings({}), { settings: null, warnings: [] });
  assert.equal(logFileSettings({ LOG_DIR: '  ' }), { settings: null, warnings: [] });
  const d = logFileSettings({ LOG_DIR: '/app/logs' });
  assert.equal(d.settings, { file: '/app/logs/engine.log', maxBytes: DEFAULT_LOG_MAX_SIZE_MB * 1024 * 1024, maxFiles: DEFAULT_LOG_MAX_FILES });
  assert.equal(d.warnings, []);
  const c = logFileSettings({ LOG_DIR: '/var/log/x', LOG_MAX_SIZE_MB: '0.5', LOG_MAX_FILES: '0' }, 'dashboard.log');
  assert.equal(c.settings, { file: '/var/log/x/dashboard.log', maxBytes: 524288, maxFiles: 0 });
  const bad = logFileSettings({ LOG_DIR: '/l', LOG_MAX_SIZE_MB: '-1', LOG_MAX_FILES: 'many' });
  assert.equal(bad.settings, { file: '/l/engine.log', maxBytes: DEFAULT_LOG_MAX_SIZE_MB * 1024 * 1024, maxFiles: DEFAULT_LOG_MAX_FILES });
  assert.is(bad.warnings.length, 2);
  assert.match(bad.warnings[0], /LOG_MAX_SIZE_MB value "-1"/);
  assert.match(bad.warnings[1], /LOG_MAX_FILES value "many"/);
});

test('openLogFile: an unusable LOG_DIR is a warning (stdout only), never an error', () => {
  const dir = tmp();
  const blocker = join(dir, 'file');
  writeFileSync(blocker, '');
  const r = openLogFile({ LOG_DIR: join(blocker, 'logs') });
  assert.is(r.stream, null);
  assert.is(r.warnings.length, 1);
  assert.match(r.warnings[0], /cannot open log file .*logging to stdout only/);
  if (existsSync('/proc/self')) {
    // Node's recursive mkdirSync never returns for a path under /proc: this must not hang.
    const p = openLogFile({ LOG_DIR: '/proc/no-such-dir/logs' });
    assert.is(p.stream, null);
    assert.match(p.warnings[0], /cannot open log file/);
  }
  const ok = openLogFile({ LOG_DIR: join(dir, 'logs') });
  assert.ok(ok.stream);
  ok.stream!.end();
  assert.ok(existsSync(join(dir, 'logs', 'engine.log')));
  // A read-only directory (when not running as root, which ignores permissions).
  if (process.getuid?.() !== 0) {
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    const r2 = openLogFile({ LOG_DIR: ro });
    assert.is(r2.stream, null);
    chmodSync(ro, 0o700);
  }
});

test('pino wiring for src/log.ts: multistream to stdout and the file, every level, same lines', () => {
  const dir = tmp();
  const lines: string[] = [];
  const stdout = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const { stream: file } = openLogFile({ LOG_DIR: dir, LOG_MAX_SIZE_MB: '0.001', LOG_MAX_FILES: '2' });
  assert.ok(file);
  // The same options createLogger uses (label levels, ISO time); both streams at level 'trace' so
  // the logger's own level is the only filter.
  const log = pino(
    { level: 'debug', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    pino.multistream([
      { level: 'trace', stream: stdout },
      { level: 'trace', stream: file! },
    ]),
  );
  log.trace('filtered by the logger level');
  log.debug({ n: 1 }, 'debug line');
  log.info('info line');
  log.error({ err: new Error('boom') }, 'error line');
  for (let i = 0; i < 60; i++) log.info({ i }, 'filler');
  file!.end();
  const fileLines = [join(dir, 'engine.log.2'), join(dir, 'engine.log.1'), join(dir, 'engine.log')]
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
  const out = lines.join('').split('\n').filter(Boolean);
  assert.is(out.length, 63);
  assert.equal(JSON.parse(out[0]).level, 'debug');
  assert.ok(file!.rotations >= 2, `rotated ${file!.rotations} times`);
  // The file keeps the newest records (older ones rotated away), identical to stdout's.
  assert.ok(fileLines.length > 0 && fileLines.length < out.length);
  assert.equal(fileLines, out.slice(out.length - fileLines.length));
  assert.equal(readdirSync(dir).sort(), ['engine.log', 'engine.log.1', 'engine.log.2']);
  for (const f of readdirSync(dir)) assert.ok(statSync(join(dir, f)).size <= 1049, `${f} exceeds LOG_MAX_SIZE_MB`);
});

test.run();
