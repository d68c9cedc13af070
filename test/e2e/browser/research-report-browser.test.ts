// The HTML report in a real browser (Debian's chromium through playwright-core): a run whose
// kill switch trips (so risk events are on the time axis), written by the CLI with --report
// and --json. Every chart drew, every figure equals the JSON result, nothing is fetched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureBuilt } from '../../helpers/build.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import type { BacktestResult } from '../../../src/wire/backtest-run.ts';

const dir = tempDir('research-report-');
const reportPath = join(dir, 'report.html');
let result: BacktestResult;
let browser: Browser;
let page: Page;
const requests: string[] = [];

beforeAll(test, async () => {
  ensureBuilt();
  // A 0.2 % drawdown limit trips in the first 15-minute session: alerts, a kill switch, a session not traded.
  const config = writeConfig('[simulation]\nsession_start = "10:30"\nsession_end = "10:45"\n[risk]\nmax_drawdown_pct = 0.002\n');
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
  assert.equal(
    charts.map((c) => c.id),
    ['chart-equity', 'chart-drawdown', 'chart-position', 'chart-price', 'chart-markouts', 'chart-pnl-session', 'chart-pnl-hour', 'chart-trade-pnl'],
  );
  for (const c of charts) {
    assert.ok(c.series.length > 0, `${c.id} has series`);
    for (const s of c.series) assert.ok(s.d > 10 && s.w + s.h > 0 && s.painted, `${c.id}: a drawn path ${JSON.stringify(s)}`);
  }
});

test('the price chart carries our quotes (both sides) and our fills', async () => {
  const series = await page.$$eval('#chart-price path.series', (ps) =>
    ps.map((p) => [p.getAttribute('data-series'), Number(p.getAttribute('data-points'))] as const),
  );
  const points = Object.fromEntries(series);
  for (const name of ['mid', 'our bid', 'our ask', 'buy', 'sell']) assert.ok(points[name] > 0, `${name}: ${points[name]} points`);
  assert.ok(
    series.every(([, n]) => n <= 2000),
    'each series bounded',
  );
});

test('every figure shown equals the JSON result, at full precision', async () => {
  const figs = await page.$$eval('[data-figure]', (els) => els.map((e) => [e.getAttribute('data-figure')!, e.getAttribute('data-value')!] as const));
  assert.ok(figs.length >= 16, `figures ${figs.length}`);
  for (const [key, value] of figs) {
    const want = key.split('.').reduce((o: unknown, k: string) => (o as Record<string, unknown>)[k], result as unknown);
    assert.equal(JSON.parse(value), want, key);
  }
  const sessions = await page.$$eval('tr[data-session]', (rows) =>
    rows.map((r) => [r.getAttribute('data-session'), Number(r.querySelector('[data-value]')!.getAttribute('data-value'))]),
  );
  assert.equal(
    sessions,
    result.session_results.map((s) => [s.date, s.pnl]),
  );
  const seed = await page.textContent('[data-meta="data source"]');
  assert.is(seed, `synthetic generator, seed ${result.seed}`);
});

test('risk events are on the time axis: one marker per alert and the kill switch, on every time chart', async () => {
  const markers = await page.$$eval('figure', (fs) => fs.map((f) => f.querySelectorAll('line.marker').length));
  const want = result.alerts.length + 1;
  assert.equal(markers, [want, want, want, want, 0, 0, 0, 0]);
});

test('the kill switch is a banner under the title, its time in New York time, labelled', async () => {
  const banner = await page.$eval('h1 + p.banner', (e) => e.textContent ?? '');
  const k = result.kill_switch;
  const ny = new Date(Date.parse(k.at!))
    .toLocaleString('en-CA', {
      timeZone: 'America/New_York',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    .replace(',', '');
  assert.match(banner, new RegExp(`^Stopped by the kill switch at ${ny} ET \\(session ${k.session_date}, ${k.rule}, equity `));
  assert.match(banner, new RegExp(`1 later session not traded: ${k.sessions_not_traded[0]}`));
  // Risk events are listed in New York time too; the ISO UTC instant stays in the markup.
  const first = await page.$eval('li time', (e) => [e.textContent, e.getAttribute('datetime')]);
  assert.match(first[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ET$/);
  assert.match(first[1]!, /Z$/);
});

test('gross P&L and fees are separate figures: gross - fees = total P&L', async () => {
  const gross = Number(JSON.parse((await page.getAttribute('[data-derived="gross_pnl"]', 'data-value'))!));
  assert.ok(Math.abs(gross - result.fees - result.total_pnl) < 1e-6, `${gross} - ${result.fees} vs ${result.total_pnl}`);
  assert.ok((await page.locator('[data-figure="fees"]').count()) === 1);
  assert.ok(result.fees > 0);
});

test('axis ticks at nice values; contracts in whole numbers; thinned markers say so; no legend entry without a series', async () => {
  const ticks = await page.$$eval('figure', (fs) =>
    fs.map((f) => [f.id, [...f.querySelectorAll('text.ytick')].map((t) => Number(t.getAttribute('data-tick')))] as const),
  );
  for (const [id, t] of ticks) {
    assert.ok(t.length >= 2, `${id}: ${t}`);
    const step = Number((t[1] - t[0]).toPrecision(12));
    const m = Number((step / 10 ** Math.floor(Math.log10(step))).toPrecision(6));
    assert.ok([1, 2, 5, 10].includes(m), `${id}: step ${step}`);
    for (let i = 1; i < t.length; i++) assert.ok(Math.abs(t[i] - t[i - 1] - step) < step * 1e-9, `${id}: even steps ${t}`);
  }
  const position = ticks.find(([id]) => id === 'chart-position')![1];
  assert.ok(position.every(Number.isInteger), `position ticks ${position}`);
  const dots = await page.$$eval('#chart-price path.dots', (ps) =>
    ps.map((p) => [Number(p.getAttribute('data-points')), Number(p.getAttribute('data-total'))]),
  );
  for (const [shown, total] of dots) assert.ok(shown <= 400 && shown <= total);
  // Every legend entry names a drawn series (the markouts have no taker fills: no "taker" entry).
  const legends = await page.$$eval('figure', (fs) =>
    fs.map((f) => ({
      id: f.id,
      names: [...f.querySelectorAll('figcaption span')].map((x) => (x.textContent ?? '').replace(/^■ /, '').replace(/ \(.*\)$/, '')),
      drawn: [...new Set([...f.querySelectorAll('path.series')].map((p) => p.getAttribute('data-series')))],
    })),
  );
  for (const l of legends) assert.equal(l.names, l.drawn, l.id);
});

test('multi-day: a session-compressed axis, P&L by session and by hour, the distribution of trade P&L', async () => {
  // Three sessions over a weekend, no kill switch.
  const config = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:45"\n');
  const path = join(dir, 'multi.html');
  const fillsPath = join(dir, 'multi-fills.csv');
  const r = runCli(['--backtest', '--config', config, '--start', '2024-01-04', '--end', '2024-01-08', '--json', '--report', path, '--fills', fillsPath]);
  assert.is(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as BacktestResult;
  const multi = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  try {
    await multi.goto(`file://${path}`, { timeout: 60_000 });
    // One block per session with its date; the sessions fill the width (the nights are left out).
    const blocks = await multi.$$eval('#chart-equity rect.session', (rs) =>
      rs.map((r) => [r.getAttribute('data-session'), Number(r.getAttribute('width'))] as const),
    );
    assert.equal(
      blocks.map((b) => b[0]),
      ['2024-01-04', '2024-01-05', '2024-01-08'],
    );
    const plot = 960 - 96 - 12;
    const used = blocks.reduce((n, b) => n + b[1], 0) / plot;
    assert.ok(used > 0.95, `sessions take ${(used * 100).toFixed(1)} % of the width`);
    assert.equal(await multi.$$eval('#chart-equity text.session-date', (ts) => ts.map((t) => t.textContent)), ['2024-01-04', '2024-01-05', '2024-01-08']);
    // A break in the line between sessions: one subpath per session.
    const d = (await multi.getAttribute('#chart-equity path.series', 'd'))!;
    assert.is((d.match(/M/g) ?? []).length, 3);
    // P&L by session: a bar per session, the session's P&L.
    const bars = await multi.$$eval('#chart-pnl-session path.bar', (ps) =>
      ps.map((p) => [p.getAttribute('data-group'), Number(p.getAttribute('data-value'))] as const),
    );
    assert.equal(
      bars,
      res.session_results.map((s) => [s.date, s.pnl]),
    );
    // P&L by hour: the equity curve's changes within sessions, all of them.
    const hours = await multi.$$eval('#chart-pnl-hour path.bar', (ps) =>
      ps.map((p) => [p.getAttribute('data-group'), Number(p.getAttribute('data-value'))] as const),
    );
    assert.ok(
      hours.every(([h]) => /^\d\d:00 ET$/.test(h!)),
      JSON.stringify(hours),
    );
    const bySession = new Map<string, { t: number; equity: number }[]>();
    for (const p of res.equity_curve) {
      const day = new Date(p.t).toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
      bySession.set(day, [...(bySession.get(day) ?? []), p]);
    }
    const within = [...bySession.values()].reduce((n, c) => n + c[c.length - 1].equity - c[0].equity, 0);
    assert.ok(Math.abs(hours.reduce((n, [, v]) => n + v, 0) - within) < 1e-6, 'the hours sum to the P&L made within sessions');
    // The distribution counts every closing fill once.
    const lines = readFileSync(fillsPath, 'utf8').trimEnd().split('\n');
    const col = lines[0].split(',').indexOf('realized_pnl_net');
    const closing = lines.slice(1).filter((l) => Number(l.split(',')[col]) !== 0).length;
    const counts = await multi.$$eval('#chart-trade-pnl path.bar', (ps) => ps.map((p) => Number(p.getAttribute('data-value'))));
    assert.is(
      counts.reduce((n, c) => n + c, 0),
      closing,
    );
    assert.ok(closing > 0);
    assert.is(await multi.locator('p.banner').count(), 0, 'no kill-switch banner when it did not trip');
  } finally {
    await multi.close();
  }
});

test('self-contained: the page fetched nothing but itself', () => {
  assert.equal(requests, [`file://${reportPath}`]);
  const html = readFileSync(reportPath, 'utf8');
  assert.ok(!/<script|<link|https?:\/\//i.test(html), 'no script, stylesheet link or URL');
});

test.run();
