// compose.yaml: valid against the Compose Specification's JSON schema (dclint's copy, with dclint's
// rules as configured in .dclintrc.yaml), and every promise of the
// deployment (docs/deployment.md) holds: services and images, ports, volumes and mount targets,
// read-only mounts, network, resources, health checks, start order, environment defaults. Also the
// container config (config/container.toml) it mounts. There is no Docker engine here, so the file
// is checked as data; the health-check commands themselves run in deploy-dockerfile.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DCLinter } from 'dclint';
import { parse as parseYaml } from 'yaml';
import { Hono } from 'hono';
import { parseConfig } from '../../../src/config/load.ts';
import { hostCheck } from '../../../src/http/host-check.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

type Obj = Record<string, any>;
const compose: Obj = parseYaml(readFileSync(join(root, 'compose.yaml'), 'utf8'));
const svc = (name: string): Obj => {
  const s = compose.services?.[name];
  assert.ok(s, `compose.yaml has no service ${name}`);
  return s;
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The engine's health check, identical in the Dockerfile (see deploy-dockerfile.test.ts). */
const ENGINE_HEALTH_JS = "fetch('http://127.0.0.1:'+(process.env.PORT||9090)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))";

/** The dashboard's own liveness route (its /health is the engine's, proxied). */
const DASHBOARD_HEALTH_JS =
  "fetch('http://127.0.0.1:'+(process.env.DASHBOARD_PORT||3000)+'/dashboard/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))";

interface Mount {
  type: string;
  source: string;
  target: string;
  read_only?: boolean;
  bind?: Obj;
}
/** Normalizes short ("src:dst[:ro]") and long volume syntax. */
function mounts(s: Obj): Mount[] {
  return (s.volumes ?? []).map((v: string | Obj): Mount => {
    if (typeof v !== 'string') return v as Mount;
    const [source, target, mode] = v.split(':');
    const type = source.startsWith('.') || source.startsWith('/') ? 'bind' : 'volume';
    return { type, source, target, read_only: mode === 'ro' };
  });
}
function mountAt(s: Obj, target: string): Mount {
  const m = mounts(s).find((x) => x.target === target);
  assert.ok(m, `no mount at ${target}`);
  return m!;
}
/** Environment as a map (list "K=V" or mapping form). */
function env(s: Obj): Record<string, string> {
  const e = s.environment ?? {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((kv: string) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, String(v)]));
}
/** Compose interpolation of ${VAR:-default} / ${VAR-default} / ${VAR} / $VAR against `vars`. */
function interpolate(s: string, vars: Record<string, string | undefined>): string {
  return s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name, op, def, bare) => {
    if (bare) return vars[bare] ?? '';
    const v = vars[name];
    if (op === ':-') return v === undefined || v === '' ? def : v;
    if (op === '-') return v === undefined ? def : v;
    return v ?? '';
  });
}

test('compose.yaml validates against the Compose Specification JSON schema and passes dclint', () => {
  const linter = new DCLinter({ quiet: false, debug: false, exclude: [], ...parseYaml(readFileSync(join(root, '.dclintrc.yaml'), 'utf8')) });
  // dclint's own .d.ts files do not resolve under NodeNext: the shape of a finding, as it reports it.
  type Finding = { rule: string; message: string; line: number; column: number };
  const lint = (path: string): { messages: Finding[] } => linter.lintFiles([path], false)[0];
  const r = lint(join(root, 'compose.yaml'));
  assert.equal(
    r.messages.map((m) => `${m.line}:${m.column} ${m.rule}: ${m.message}`),
    [],
    'dclint findings in compose.yaml',
  );
  // The schema is strict (additionalProperties: false): prove the validator is live, not vacuous.
  const dir = mkdtempSync(join(tmpdir(), 'deploy-compose-'));
  try {
    writeFileSync(join(dir, 'compose.yaml'), 'services:\n  engine:\n    image: x:1\n    helthcheck: {}\n');
    const typo = lint(join(dir, 'compose.yaml'));
    assert.ok(
      typo.messages.some((m) => m.rule === 'invalid-schema' && /additional properties/.test(m.message)),
      `an unknown service key must be rejected: ${JSON.stringify(typo.messages)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('services, pinned images and the engine/dashboard build', () => {
  assert.equal(Object.keys(compose.services).sort(), ['dashboard', 'engine', 'grafana', 'prometheus', 'redis', 'worker']);
  const engine = svc('engine');
  const dashboard = svc('dashboard');
  assert.is(engine.image, `futures-mm-engine:${pkg.version}`);
  assert.is(dashboard.image, engine.image, 'the dashboard runs the engine image');
  for (const s of [engine, dashboard]) {
    assert.equal(s.build, { context: '.', dockerfile: 'Dockerfile' });
  }
  assert.equal(engine.command, ['node', 'dist/engine.js']);
  assert.equal(dashboard.command, ['node', 'dist/dashboard.js']);
  assert.match(svc('prometheus').image, /^prom\/prometheus:v\d+\.\d+\.\d+$/, 'Prometheus image pinned to an exact release');
  assert.match(svc('grafana').image, /^grafana\/grafana:\d+\.\d+\.\d+$/, 'Grafana image pinned to an exact release');
  for (const [name, s] of Object.entries<Obj>(compose.services)) {
    assert.not.match(String(s.image), /:latest$|^[^:]+$/, `${name}: image must carry an exact tag`);
  }
});

const BIND = '${BIND_ADDRESS:-127.0.0.1}';

test('ports: engine 9090, dashboard 3000, Prometheus 9091->9090, Grafana 3001->3000, all on ${BIND_ADDRESS:-127.0.0.1}, no clashes', () => {
  assert.equal(svc('engine').ports, [`${BIND}:9090:9090`]);
  assert.equal(svc('dashboard').ports, [`${BIND}:3000:3000`]);
  assert.equal(svc('prometheus').ports, [`${BIND}:9091:9090`]);
  assert.equal(svc('grafana').ports, [`${BIND}:3001:3000`]);
  const published = Object.values<Obj>(compose.services).flatMap((s) => (s.ports ?? []).map((p: string) => interpolate(p, {})));
  for (const p of published) assert.match(p, /^127\.0\.0\.1:\d+:\d+$/, `${p}: published on loopback unless BIND_ADDRESS is set`);
  const host = published.map((p) => p.split(':')[1]);
  assert.is(new Set(host).size, host.length, `host ports clash: ${host.join(', ')}`);
  // One variable opens them all.
  for (const s of Object.values<Obj>(compose.services))
    for (const p of s.ports ?? []) assert.match(interpolate(p, { BIND_ADDRESS: '0.0.0.0' }), /^0\.0\.0\.0:/);
});

test('inside the containers the engine and dashboard listen on 0.0.0.0; the engine accepts Host "engine", which Prometheus and the dashboard use', async () => {
  assert.is(env(svc('engine')).HOST, '0.0.0.0');
  assert.is(env(svc('dashboard')).DASHBOARD_HOST, '0.0.0.0');
  const container = parseConfig(readFileSync(join(root, 'config/container.toml'), 'utf8'), 'config/container.toml');
  const prom: Obj = parseYaml(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8'));
  const target: string = prom.scrape_configs.find((j: Obj) => j.job_name === 'engine').static_configs[0].targets[0];
  const dashboardHost = new URL(env(svc('dashboard')).ENGINE_URL).host;
  // The engine's own Host check (src/http/host-check.ts), configured as in the container.
  const check = hostCheck(container.http.allowed_hosts)!;
  const app = new Hono().use(check).get('*', (c) => c.text('ok'));
  for (const host of [target, dashboardHost, '127.0.0.1:9090']) {
    const r = await app.request('http://x/metrics', { headers: { host } });
    assert.is(r.status, 200, `Host: ${host}`);
  }
  assert.is((await app.request('http://x/metrics', { headers: { host: 'rebind.example:9090' } })).status, 400);
});

test('docs/deployment.md: BIND_ADDRESS, ENGINE_API_TOKEN and the Grafana password before publishing', () => {
  const docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8');
  for (const s of ['BIND_ADDRESS', 'ENGINE_API_TOKEN', 'GRAFANA_ADMIN_PASSWORD', 'allowed_hosts'])
    assert.ok(docs.includes(s), `docs/deployment.md does not mention ${s}`);
});

test('every service is on the bridge network engine-network', () => {
  assert.equal(compose.networks, { 'engine-network': { name: 'engine-network', driver: 'bridge' } });
  for (const [name, s] of Object.entries<Obj>(compose.services)) {
    assert.equal(s.networks, ['engine-network'], `${name} networks`);
  }
});

test('engine volumes and mounts: data, logs, read-only models and config', () => {
  const engine = svc('engine');
  assert.equal(mountAt(engine, '/app/data'), { type: 'volume', source: 'engine-data', target: '/app/data' });
  assert.equal(mountAt(engine, '/app/logs'), { type: 'volume', source: 'engine-logs', target: '/app/logs' });
  const models = mountAt(engine, '/app/models');
  assert.is(models.type, 'bind');
  assert.is(models.source, './models');
  assert.is(models.read_only, true, 'models are mounted read-only');
  // models/ may be absent (the engine then runs without predictions): let Docker create it.
  assert.is(models.bind?.create_host_path, true);
  const cfg = mountAt(engine, '/app/config.toml');
  assert.is(cfg.type, 'bind');
  assert.is(cfg.source, './config/container.toml');
  assert.is(cfg.read_only, true, 'the config is mounted read-only');
  assert.ok(statSync(join(root, cfg.source)).isFile(), `${cfg.source} must exist (a missing bind source becomes a directory)`);
  assert.is(mounts(engine).length, 4);
});

test('named volumes: declared, and Prometheus and Grafana keep their data in them', () => {
  assert.equal(Object.keys(compose.volumes).sort(), ['engine-data', 'engine-logs', 'grafana-data', 'prometheus-data', 'redis-data']);
  assert.equal(mountAt(svc('prometheus'), '/prometheus'), { type: 'volume', source: 'prometheus-data', target: '/prometheus' });
  assert.equal(mountAt(svc('grafana'), '/var/lib/grafana'), { type: 'volume', source: 'grafana-data', target: '/var/lib/grafana' });
  for (const [name, s] of Object.entries<Obj>(compose.services)) {
    for (const m of mounts(s)) {
      if (m.type === 'volume') assert.ok(m.source in compose.volumes, `${name}: volume ${m.source} is not declared`);
      if (m.type === 'bind' && !m.bind?.create_host_path) assert.ok(existsSync(join(root, m.source)), `${name}: bind source ${m.source} does not exist`);
      if (m.type === 'bind') assert.is(m.read_only, true, `${name}: bind mount ${m.source} must be read-only`);
    }
  }
});

test('monitoring mounts: Prometheus config, Grafana provisioning and dashboards', () => {
  const prom = svc('prometheus');
  assert.equal(mountAt(prom, '/etc/prometheus/prometheus.yml'), {
    type: 'bind',
    source: './deploy/prometheus/prometheus.yml',
    target: '/etc/prometheus/prometheus.yml',
    read_only: true,
  });
  assert.ok(prom.command.includes('--config.file=/etc/prometheus/prometheus.yml'));
  assert.ok(prom.command.includes('--storage.tsdb.path=/prometheus'));
  const grafana = svc('grafana');
  assert.is(mountAt(grafana, '/etc/grafana/provisioning').source, './deploy/grafana/provisioning');
  assert.is(mountAt(grafana, '/etc/grafana/dashboards').source, './deploy/grafana/dashboards');
  // The dashboard provider reads the directory compose mounts.
  const provider = parseYaml(readFileSync(join(root, 'deploy/grafana/provisioning/dashboards/engine.yaml'), 'utf8'));
  assert.is(provider.providers[0].options.path, '/etc/grafana/dashboards');
});

test('engine resources: reservations 2 CPUs / 2 GB, limits 4 CPUs / 4 GB', () => {
  assert.equal(svc('engine').deploy, {
    resources: {
      reservations: { cpus: '2', memory: '2G' },
      limits: { cpus: '4', memory: '4G' },
    },
  });
});

test('health checks: 30s interval, 10s timeout, 5s start period, 3 retries, on every service', () => {
  for (const name of ['engine', 'dashboard', 'prometheus', 'grafana']) {
    const h = svc(name).healthcheck;
    assert.ok(h, `${name} has no healthcheck`);
    assert.is(h.interval, '30s', `${name} interval`);
    assert.is(h.timeout, '10s', `${name} timeout`);
    assert.is(h.start_period, '5s', `${name} start_period`);
    assert.is(h.retries, 3, `${name} retries`);
    assert.is(h.test[0], 'CMD', `${name}: exec form, no shell needed`);
  }
  // Commands that exist in each image: Node in ours (no curl/wget in node:*-slim), BusyBox wget in
  // prom/prometheus and grafana/grafana.
  assert.equal(svc('engine').healthcheck.test, ['CMD', 'node', '-e', ENGINE_HEALTH_JS]);
  assert.equal(svc('dashboard').healthcheck.test.slice(0, 3), ['CMD', 'node', '-e']);
  assert.equal(svc('dashboard').healthcheck.test, ['CMD', 'node', '-e', DASHBOARD_HEALTH_JS]);
  assert.equal(svc('prometheus').healthcheck.test, ['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:9090/-/healthy']);
  assert.equal(svc('grafana').healthcheck.test, ['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:3000/api/health']);
});

test('start order: dashboard waits for a healthy engine, Grafana for a healthy Prometheus', () => {
  assert.equal(svc('dashboard').depends_on, { engine: { condition: 'service_healthy' } });
  assert.equal(svc('grafana').depends_on, { prometheus: { condition: 'service_healthy' } });
  assert.equal(svc('prometheus').depends_on, { engine: { condition: 'service_started' } });
});

test('engine environment: log level, backtraces, port, config, log files', () => {
  const e = env(svc('engine'));
  assert.is(e.RUST_LOG, '${RUST_LOG:-info}');
  assert.is(interpolate(e.RUST_LOG, {}), 'info');
  assert.is(interpolate(e.RUST_LOG, { RUST_LOG: 'debug' }), 'debug');
  assert.is(e.RUST_BACKTRACE, '1');
  assert.is(e.PORT, '9090');
  assert.is(e.ENGINE_CONFIG, '/app/config.toml');
  assert.is(e.ENGINE_CONFIG, mountAt(svc('engine'), '/app/config.toml').target);
  assert.is(e.LOG_DIR, '/app/logs');
  assert.is(e.LOG_DIR, mountAt(svc('engine'), '/app/logs').target, 'log files land in the engine-logs volume');
  assert.ok(Number(e.LOG_MAX_SIZE_MB) > 0 && Number.isInteger(Number(e.LOG_MAX_FILES)), 'log files are size-bounded');
  // Container stdout logs are bounded as well.
  for (const [name, s] of Object.entries<Obj>(compose.services)) {
    assert.equal(s.logging, { driver: 'json-file', options: { 'max-size': '10m', 'max-file': '5' } }, `${name} logging`);
  }
});

test('dashboard environment: port 3000 and the engine at http://engine:9090', () => {
  const e = env(svc('dashboard'));
  assert.is(e.DASHBOARD_PORT, '3000');
  assert.is(e.ENGINE_URL, 'http://engine:9090');
});

test('Grafana: admin login from the environment with documented defaults, sign-up off', () => {
  const e = env(svc('grafana'));
  assert.is(e.GF_SECURITY_ADMIN_USER, '${GRAFANA_ADMIN_USER:-admin}');
  assert.is(e.GF_SECURITY_ADMIN_PASSWORD, '${GRAFANA_ADMIN_PASSWORD:-admin}');
  assert.is(interpolate(e.GF_SECURITY_ADMIN_USER, {}), 'admin');
  assert.is(interpolate(e.GF_SECURITY_ADMIN_PASSWORD, {}), 'admin');
  assert.is(interpolate(e.GF_SECURITY_ADMIN_PASSWORD, { GRAFANA_ADMIN_PASSWORD: 's3cret' }), 's3cret');
  assert.is(e.GF_USERS_ALLOW_SIGN_UP, 'false');
  assert.is(e.GF_AUTH_ANONYMOUS_ENABLED, 'false');
  const docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8');
  for (const s of [
    'GRAFANA_ADMIN_USER',
    'GRAFANA_ADMIN_PASSWORD',
    '3001',
    '9091',
    'engine-data',
    'engine-logs',
    'prometheus-data',
    'grafana-data',
    'docker compose up',
  ]) {
    assert.ok(docs.includes(s), `docs/deployment.md does not mention ${s}`);
  }
});

test('config/container.toml: the shipped config with the container paths', () => {
  const container = parseConfig(readFileSync(join(root, 'config/container.toml'), 'utf8'), 'config/container.toml');
  const shipped = parseConfig(readFileSync(join(root, 'config/config.toml'), 'utf8'), 'config/config.toml');
  assert.is(container.data_dir, mountAt(svc('engine'), '/app/data').target);
  assert.is(container.model.dir, mountAt(svc('engine'), '/app/models').target);
  // Everything else equals config/config.toml: a change there reaches the container too.
  assert.equal(container.http.allowed_hosts, ['engine'], 'the compose service name');
  const strip = (c: typeof shipped) =>
    JSON.parse(JSON.stringify({ ...c, data_dir: null, model: { ...c.model, dir: null }, http: { ...c.http, allowed_hosts: null } }));
  assert.equal(
    strip(container),
    strip(shipped),
    'config/container.toml must differ from config/config.toml only in data_dir, [model] dir and [http] allowed_hosts',
  );
  assert.is(container.metrics_port, 9090);
});

test.run();
