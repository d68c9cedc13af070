// Grafana provisioning (data source, dashboard provider) and the dashboard JSON: it covers what
// the deployment promises (P&L, position, order and fill rates, tick-to-trade quantiles, kill
// switch, event rate, ring drops, SSE clients, event-loop lag), and every query names metrics the
// engine actually exports: each metric name parsed out of each expr is checked against a live
// /metrics scrape of `node dist/engine.js`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ENGINE, writeConfig } from '../../helpers/cli.ts';
import { startEngine, type EngineProcess } from '../../helpers/engine-process.ts';
import { until } from '../../helpers/wait.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/dashboards/engine.json'), 'utf8'));
const datasources = parseYaml(readFileSync(join(root, 'deploy/grafana/provisioning/datasources/prometheus.yaml'), 'utf8'));
const providers = parseYaml(readFileSync(join(root, 'deploy/grafana/provisioning/dashboards/engine.yaml'), 'utf8'));

// ---------------------------------------------------------------------------------------------
// PromQL metric names

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'inf', 'nan', 'atan2']);

/** Metric names an expression selects: identifiers that are not functions, keywords or labels. */
function metricNames(expr: string): string[] {
  const s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // range and subquery durations (and Grafana's $__rate_interval)
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\boffset\s+-?[0-9a-z]+/gi, ' ')
    .replace(/(?<![A-Za-z0-9_:])(?:0x[0-9a-f]+|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)/gi, ' '); // numbers
  const names = new Set<string>();
  for (const m of s.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?=(\s*\()?)/g)) {
    if (m[1]) continue; // a function or aggregation call
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

test('metricNames: selectors, functions, aggregations, grouping, matchers, ranges, numbers', () => {
  assert.equal(metricNames('engine_kill_switch'), ['engine_kill_switch']);
  assert.equal(metricNames('histogram_quantile(0.99, sum by (le) (rate(engine_tick_to_trade_seconds_bucket{symbol=~"$symbol"}[$__rate_interval])))'), [
    'engine_tick_to_trade_seconds_bucket',
  ]);
  assert.equal(metricNames('sum by (side, liquidity) (rate(engine_fills_total{side="buy"}[5m])) / on (instance) group_left count(up)'), [
    'engine_fills_total',
    'up',
  ]);
  assert.equal(metricNames('sum(a_total) + sum(b_usd) - 1e-6 * c offset 5m > bool 0.5'), ['a_total', 'b_usd', 'c']);
  assert.equal(metricNames('max(nodejs_eventloop_lag_p99_seconds)'), ['nodejs_eventloop_lag_p99_seconds']);
  assert.equal(metricNames('rate(x{le="+Inf", a=~"by (b)"}[1m:10s]) unless y'), ['x', 'y']);
});

// ---------------------------------------------------------------------------------------------
// Provisioning

type Obj = Record<string, any>;
function panelsOf(d: Obj): Obj[] {
  const out: Obj[] = [];
  const walk = (ps: Obj[] | undefined) => {
    for (const p of ps ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(d.panels);
  return out;
}
const panels = panelsOf(dashboard);
const queryPanels = panels.filter((p) => p.type !== 'row');
const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t: Obj) => ({ panel: p.title as string, expr: t.expr as string })));
const variableQueries: { name: string; query: string }[] = (dashboard.templating?.list ?? [])
  .filter((v: Obj) => v.type === 'query')
  .map((v: Obj) => ({ name: v.name, query: typeof v.query === 'string' ? v.query : v.query.query }));

test('data source: the stack Prometheus at http://prometheus:9090, with the uid the dashboard uses', () => {
  assert.is(datasources.apiVersion, 1);
  assert.is(datasources.datasources.length, 1);
  const ds = datasources.datasources[0];
  assert.is(ds.type, 'prometheus');
  assert.is(ds.url, 'http://prometheus:9090');
  assert.is(ds.access, 'proxy');
  assert.is(ds.isDefault, true);
  assert.is(ds.uid, 'prometheus');
  // Scrape interval hint matches the Prometheus config, so $__rate_interval covers >= 4 scrapes.
  const prom = parseYaml(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8'));
  assert.is(ds.jsonData.timeInterval, prom.global.scrape_interval);
  // Every provisioning file is YAML Grafana can read: only .yaml/.yml files in the two folders.
  for (const sub of ['datasources', 'dashboards']) {
    for (const f of readdirSync(join(root, 'deploy/grafana/provisioning', sub))) assert.match(f, /\.ya?ml$/);
  }
});

test('dashboard provider: files from /etc/grafana/dashboards, not editable in the UI', () => {
  assert.is(providers.apiVersion, 1);
  const p = providers.providers[0];
  assert.is(p.type, 'file');
  assert.is(p.options.path, '/etc/grafana/dashboards');
  assert.is(p.allowUiUpdates, false);
});

test('dashboard JSON: identity, data source references, layout', () => {
  assert.is(dashboard.uid, 'futures-mm-engine');
  assert.ok(dashboard.title);
  assert.is(dashboard.id ?? null, null, 'no database id in a provisioned dashboard');
  assert.ok(Number.isInteger(dashboard.schemaVersion));
  const ids = panels.map((p) => p.id);
  assert.is(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const p of queryPanels) {
    assert.ok(p.targets?.length > 0, `panel ${p.title} has no queries`);
    assert.equal(p.datasource, { type: 'prometheus', uid: 'prometheus' }, `panel ${p.title} data source`);
    for (const t of p.targets) {
      assert.equal(t.datasource, { type: 'prometheus', uid: 'prometheus' }, `panel ${p.title} query data source`);
      assert.ok(typeof t.expr === 'string' && t.expr.trim() !== '', `panel ${p.title}: empty expr`);
    }
    const refIds = p.targets.map((t: Obj) => t.refId);
    assert.is(new Set(refIds).size, refIds.length, `panel ${p.title}: refIds unique`);
  }
  // Panels fit the 24-column grid and do not overlap.
  const boxes = panels.map((p) => ({ t: p.title, ...p.gridPos }));
  for (const b of boxes) assert.ok(b.x >= 0 && b.w > 0 && b.x + b.w <= 24 && b.h > 0 && b.y >= 0, `panel ${b.t} outside the grid`);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i];
      const b = boxes[j];
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      assert.not.ok(overlap, `panels ${a.t} and ${b.t} overlap`);
    }
  }
});

test('dashboard covers P&L, position, orders, fills, tick-to-trade quantiles, kill switch, events, ring drops, SSE, event-loop lag', () => {
  const all = exprs.map((e) => e.expr);
  const uses = (metric: string) => all.some((e) => metricNames(e).includes(metric));
  for (const m of [
    'engine_realized_pnl_usd',
    'engine_unrealized_pnl_usd',
    'engine_position_contracts',
    'engine_orders_total',
    'engine_fills_total',
    'engine_tick_to_trade_seconds_bucket',
    'engine_kill_switch',
    'engine_events_total',
    'engine_ring_drops_total',
    'engine_sse_clients',
  ]) {
    assert.ok(uses(m), `no dashboard query uses ${m}`);
  }
  assert.ok(
    all.some((e) => metricNames(e).some((n) => n.startsWith('nodejs_eventloop_lag'))),
    'an event-loop lag panel',
  );
  // Counters are shown as rates, never raw.
  for (const { panel, expr } of exprs) {
    for (const n of metricNames(expr)) {
      if (n.endsWith('_total') || n.endsWith('_bucket'))
        assert.match(expr, new RegExp(`(?:rate|increase)\\(${n}\\b`), `${panel}: counter ${n} must be inside rate()/increase()`);
    }
  }
  // Tick-to-trade quantiles: histogram_quantile over the rate of the _bucket series, grouped by le.
  const quantiles = exprs.filter((e) => e.expr.includes('histogram_quantile') && e.expr.includes('engine_tick_to_trade_seconds'));
  const qs = quantiles.map((e) => Number(/histogram_quantile\(\s*([0-9.]+)/.exec(e.expr)![1]));
  for (const q of [0.5, 0.9, 0.99]) assert.ok(qs.includes(q), `tick-to-trade p${q * 100}`);
  for (const { panel, expr } of exprs.filter((e) => e.expr.includes('histogram_quantile'))) {
    assert.match(expr, /histogram_quantile\(\s*[0-9.]+\s*,\s*sum by \((?:[a-z_]+,\s*)*le(?:,\s*[a-z_]+)*\) \(rate\([a-z_:]+_bucket\b/, `${panel}: ${expr}`);
  }
});

// ---------------------------------------------------------------------------------------------
// Against a live engine

let engine: EngineProcess | null = null;
process.on('exit', () => engine?.proc.kill('SIGKILL'));
test.after(async () => {
  if (!engine || engine.proc.exitCode !== null || engine.proc.signalCode !== null) return;
  const t = setTimeout(() => engine!.proc.kill('SIGKILL'), 5000);
  await engine.stop('SIGTERM');
  clearTimeout(t);
});

/** Scrapes /metrics of `node dist/engine.js` (shipped settings, ephemeral port) once it has events. */
async function liveMetricsText(): Promise<string> {
  assert.ok(existsSync(ENGINE), `${ENGINE} not found: run npm run build (npm test does)`);
  const e = await startEngine(writeConfig(''), { RUST_LOG: 'info' });
  engine = e;
  // Wait until the runtime has produced events, so label-bearing series exist.
  return until(
    'engine_events_total > 0 on /metrics',
    async () => {
      const r = await fetch(`${e.url}/metrics`, { signal: AbortSignal.timeout(5000) });
      const text = await r.text();
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return /^engine_events_total\{[^}]*\} [1-9]/m.test(text) && text;
    },
    { everyMs: 250, child: e.proc, context: () => e.logs.join('\n') },
  );
}

/** Series names a Prometheus exposition exports: samples, plus the series each TYPE implies. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, n, t] = type;
      if (t === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(n + s);
      else if (t === 'summary') for (const s of ['', '_sum', '_count']) names.add(n + s);
      else names.add(n);
      continue;
    }
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

// Series Prometheus itself attaches to every scrape target (not in /metrics, always present).
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added']);

test('every dashboard query (and variable query) names metrics a live engine exports', async () => {
  const exported = exportedNames(await liveMetricsText());
  assert.ok(exported.has('engine_events_total'), 'the scrape is the engine /metrics');
  const missing: string[] = [];
  let checked = 0;
  for (const { panel, expr } of exprs) {
    const names = metricNames(expr);
    assert.ok(names.length > 0, `${panel}: no metric in ${expr}`);
    for (const n of names) {
      checked++;
      if (!exported.has(n) && !SCRAPE_SERIES.has(n)) missing.push(`${panel}: ${n} (in ${expr})`);
    }
  }
  for (const v of variableQueries) {
    const m = /^label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)/.exec(v.query);
    assert.ok(m, `variable ${v.name}: expected label_values(metric, label), got ${v.query}`);
    checked++;
    if (!exported.has(m![1])) missing.push(`variable ${v.name}: ${m![1]}`);
  }
  assert.equal(missing, [], `dashboard queries name metrics the engine does not export:\n${missing.join('\n')}`);
  assert.ok(checked >= exprs.length);
});

test.run();
