// The container smoke test's pieces that run without podman or root (the smoke test itself is
// .ci/run's own step, scripts/container-smoke.sh; see docs/deployment.md):
// - .ci/run runs it after the suite, fails when it fails, and still ends with the summary line;
// - the script refuses clearly when a tool is missing, and rejects unknown arguments;
// - the compose file it hands podman-compose 1.0.3 is compose.yaml with the test-only override:
//   health checks that run the same argument vectors, the empty defaults podman-compose cannot
//   substitute, the test's ports, and nothing else changed; read the way podman-compose reads
//   YAML (1.1), every value is still the same.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT } from '../../helpers/cli.ts';

const work = mkdtempSync(join(tmpdir(), 'container-smoke-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

function writeExe(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** .ci/run in a scratch copy of the repository layout, with npm and the smoke script stubbed. */
function ciRun(smokeExit: number): { status: number | null; lines: string[] } {
  const dir = mkdtempSync(join(work, 'ci-'));
  mkdirSync(join(dir, '.ci'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'bin'));
  cpSync(join(ROOT, '.ci/run'), join(dir, '.ci/run'));
  writeExe(join(dir, 'scripts/container-smoke.sh'), `echo smoke-ran\nexit ${smokeExit}`);
  // npm test prints uvu's summary; every Debian tool .ci/run looks for is "installed".
  writeExe(join(dir, 'bin/npm'), `[ "$1" = test ] && printf '  Total:     3\\n  Passed:    3\\n'\nexit 0`);
  for (const tool of ['chromium', 'promtool', 'redis-server', 'podman', 'iptables', 'mmdebstrap', 'apt-get']) {
    writeExe(join(dir, 'bin', tool), 'exit 0');
  }
  const r = spawnSync('bash', [join(dir, '.ci/run')], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(dir, 'bin')}:/usr/bin:/bin` },
  });
  return { status: r.status, lines: r.stdout.trim().split('\n') };
}

test('.ci/run: the container smoke test is its own step; its failure fails CI; the summary line stays last', () => {
  const ok = ciRun(0);
  assert.is(ok.status, 0);
  assert.ok(ok.lines.includes('smoke-ran'), 'the smoke script ran');
  assert.is(ok.lines.at(-1), '3 passed, 0 failed');
  const failed = ciRun(1);
  assert.ok(failed.lines.includes('smoke-ran'));
  assert.is.not(failed.status, 0, 'a failed smoke test fails CI even when every test passed');
  assert.is(failed.lines.at(-1), '3 passed, 0 failed');
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  assert.not.match(readFileSync(join(ROOT, 'package.json'), 'utf8'), /container-smoke/, 'not inside npm test');
  for (const pkg of ['podman', 'buildah', 'runc', 'netavark', 'aardvark-dns', 'iptables', 'mmdebstrap']) {
    assert.match(ci, new RegExp(`need\\+=\\([^)]*\\b${pkg}\\b`), `.ci/run installs ${pkg}`);
  }
});

const script = join(ROOT, 'scripts/container-smoke.sh');

test('scripts/container-smoke.sh: a missing tool is named, nothing is created; an unknown argument is refused', () => {
  const bin = mkdtempSync(join(work, 'bin-'));
  for (const tool of ['id', 'dirname', 'sed', 'cat']) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    writeExe(join(bin, tool), `exec ${found} "$@"`);
  }
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const bash = spawnSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();
  const r = spawnSync(bash, [script], { encoding: 'utf8', env: { PATH: bin, TMPDIR: tmp } });
  assert.is(r.status, 1);
  assert.match(r.stderr, /FAIL: (needs root|'podman' not found)/);
  assert.equal(spawnSync('ls', ['-A', tmp], { encoding: 'utf8' }).stdout, '', 'no state directory left behind');
  const bad = spawnSync('bash', [script, '--composee'], { encoding: 'utf8' });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /unknown argument '--composee' \(expected --compose\)/);
  assert.is(spawnSync('bash', ['-n', script]).status, 0, 'bash -n');
});

// ---------------------------------------------------------------------------------------------
// The compose file for podman-compose.

const out = join(work, 'compose.podman.json');
const gen = spawnSync(
  process.execPath,
  [join(ROOT, 'scripts/container-smoke/compose-for-podman.mjs'), join(ROOT, 'compose.yaml'), join(ROOT, 'scripts/container-smoke/compose.podman.yaml'), out],
  { encoding: 'utf8' },
);
const original: any = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'));

test('compose-for-podman: runs, and lists every service with its image', () => {
  assert.is(gen.status, 0, gen.stderr);
  const listed = gen.stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  assert.equal(
    listed,
    Object.entries(original.services).map(([name, s]: [string, any]) => [name, s.image]),
  );
});

/** The argument vector sh makes of a command line. */
function argv(commandLine: string): string[] {
  const r = spawnSync('sh', ['-c', `eval "set -- $1"; for a in "$@"; do printf '%s\\0' "$a"; done`, 'sh', commandLine], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('compose-for-podman: each ["CMD", ...] health check becomes a shell line with the same arguments', () => {
  const merged = JSON.parse(readFileSync(out, 'utf8'));
  let n = 0;
  for (const [name, s] of Object.entries(original.services) as [string, any][]) {
    const test = s.healthcheck.test;
    assert.is(test[0], 'CMD', `${name}: compose.yaml's health checks are exec form`);
    const line = merged.services[name].healthcheck.test;
    assert.type(line, 'string', `${name}: a shell line, not a list podman-compose 1.0.3 mangles`);
    assert.equal(argv(line), test.slice(1), `${name}: same arguments`);
    n++;
  }
  assert.ok(n >= 6);
  // The engine's check needs quoting (parentheses, quotes): the case podman-compose breaks.
  assert.match(original.services.engine.healthcheck.test[3], /[()']/);
});

test('compose-for-podman: only the override changes, and YAML 1.1 (podman-compose) reads the same values', () => {
  const merged = JSON.parse(readFileSync(out, 'utf8'));
  assert.is(merged.services.engine.environment.ENGINE_API_TOKEN, '');
  assert.is(merged.services.engine.environment.QUEUE_URL, '');
  assert.equal(merged.services.engine.ports, ['127.0.0.1:${SMOKE_ENGINE_PORT}:9090']);
  assert.equal(merged.services.prometheus.ports, ['127.0.0.1:${SMOKE_PROMETHEUS_PORT}:9090']);
  // Undo exactly those changes and the health-check form: what is left is compose.yaml.
  merged.services.engine.environment.ENGINE_API_TOKEN = original.services.engine.environment.ENGINE_API_TOKEN;
  merged.services.engine.environment.QUEUE_URL = original.services.engine.environment.QUEUE_URL;
  merged.services.engine.ports = original.services.engine.ports;
  merged.services.prometheus.ports = original.services.prometheus.ports;
  for (const name of Object.keys(merged.services)) merged.services[name].healthcheck.test = original.services[name].healthcheck.test;
  assert.equal(merged, original);
  // A YAML 1.1 reader (PyYAML in podman-compose) turns a plain `yes` into true: redis would get
  // `--appendonly True`. The file must read back with the same strings.
  const as11: any = parseYaml(readFileSync(out, 'utf8'), { version: '1.1' });
  assert.equal(as11.services.redis.command, ['redis-server', '--appendonly', 'yes']);
  assert.equal(as11, JSON.parse(readFileSync(out, 'utf8')));
});

test('compose.yaml itself names no podman override (Docker users run it unchanged)', () => {
  assert.not.match(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), /compose\.podman|container-smoke/);
});

test.run();
