// The HTML report in a real browser (Debian's chromium through playwright-core): a run whose
// kill switch trips (so risk events are on the time axis), written by the CLI with --report
// and --json. Every chart drew, every figure equals the JSON result, nothing is fetched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureBuilt } from './helpers/build.ts';
import { beforeAll } from './helpers/hooks.ts';
import { runCli, tempDir, writeConfig } from './helpers/cli.ts';
import type { BacktestResult } from '../src/api/backtest-run.ts';

const dir = tempDir('research-report-');
const reportPath = join(dir, 'report.html');
let result: BacktestResult;
let browser: Browser;
let page: Page;
const requests: string[] = [];

beforeAll(test, async () => {
  ensureBuilt();
  // A 0.2 % drawdown limit trips in the first 15-minute session: alerts, a kill switch, a session not traded.
  const config = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n[risk]\nmax_drawdown_pct = 0.002\n');
  const r = runCli(['--backtest', '--config', config, '--start', '2024-01-02', '--end', '2024-01-03', '--json', '--report', reportPath]);
  assert.is(r.code, 0, r.stderr);
  result = JSON.parse(r.stdout) as BacktestResult;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('request', (req) => requests.push(req.url()));
  await page.goto(`file://${reportPath}`, { timeout: 60_000 });
});

test.after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the run tripped its kill switch (the report has events to show)', () => {
  assert.ok(result.kill_switch.tripped, 'kill switch tripped');
  assert.ok(result.alerts.length > 0, 'alerts raised');
});

test('every chart drew: each SVG has series paths with a visible extent', async () => {
  const charts = await page.$$eval('svg.chart', (svgs) =>
    svgs.map((svg) => ({
      id: svg.closest('figure')!.id,
      series: [...svg.querySelectorAll('path.series')].map((p) => {
        const b = (p as unknown as { getBBox(): { width: number; height: number } }).getBBox();
        const css = (globalThis as unknown as { getComputedStyle(e: unknown): { stroke: string; strokeWidth: string; fill: string } }).getComputedStyle(p);
        // Painted: a stroke (lines, dots) or a fill (bars), not both none.
        const painted = (css.stroke !== 'none' && css.strokeWidth !== '0px') || css.fill !== 'none';
        return { d: p.getAttribute('d')!.length, w: b.width, h: b.height, painted };
      }),
    })),
  );
  assert.equal(charts.map((c) => c.id), ['chart-equity', 'chart-drawdown', 'chart-position', 'chart-price', 'chart-markouts']);
  for (const c of charts) {
    assert.ok(c.series.length > 0, `${c.id} has series`);
    for (const s of c.series) assert.ok(s.d > 10 && s.w + s.h > 0 && s.painted, `${c.id}: a drawn path ${JSON.stringify(s)}`);
  }
});

test('the price chart carries our quotes (both sides) and our fills', async () => {
  const series = await page.$$eval('#chart-price path.series', (ps) => ps.map((p) => [p.getAttribute('data-series'), Number(p.getAttribute('data-points'))] as const));
  const points = Object.fromEntries(series);
  for (const name of ['mid', 'our bid', 'our ask', 'buy', 'sell']) assert.ok(points[name] > 0, `${name}: ${points[name]} points`);
  assert.ok(series.every(([, n]) => n <= 2000), 'each series bounded');
});

test('every figure shown equals the JSON result, at full precision', async () => {
  const figs = await page.$$eval('[data-figure]', (els) => els.map((e) => [e.getAttribute('data-figure')!, e.getAttribute('data-value')!] as const));
  assert.ok(figs.length >= 16, `figures ${figs.length}`);
  for (const [key, value] of figs) {
    const want = key.split('.').reduce((o: unknown, k: string) => (o as Record<string, unknown>)[k], result as unknown);
    assert.equal(JSON.parse(value), want, key);
  }
  const sessions = await page.$$eval('tr[data-session]', (rows) => rows.map((r) => [r.getAttribute('data-session'), Number(r.querySelector('[data-value]')!.getAttribute('data-value'))]));
  assert.equal(sessions, result.session_results.map((s) => [s.date, s.pnl]));
  const seed = await page.textContent('[data-meta="data source"]');
  assert.is(seed, `synthetic generator, seed ${result.seed}`);
});

test('risk events are on the time axis: one marker per alert and the kill switch, on every time chart', async () => {
  const markers = await page.$$eval('figure', (fs) => fs.map((f) => f.querySelectorAll('line.marker').length));
  const want = result.alerts.length + 1;
  assert.equal(markers, [want, want, want, want, 0]);
});

test('self-contained: the page fetched nothing but itself', () => {
  assert.equal(requests, [`file://${reportPath}`]);
  const html = readFileSync(reportPath, 'utf8');
  assert.ok(!/<script|<link|https?:\/\//i.test(html), 'no script, stylesheet link or URL');
});

test.run();
