// The sweep panel in a real browser (chromium via playwright-core) against a real engine and
// dashboard server: fill the form, run a 2 x 2 sweep, the table shows its 4 points and sorts on
// a header click, the heatmap shows the metric over the two parameters; a bad value shows the
// engine's message naming grid.<parameter>.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { ensureBuilt } from '../../helpers/build.ts';
import { ENGINE, ROOT, tempDir } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { freePort } from '../../helpers/net.ts';
import { until, untilOk, WAIT_MS } from '../../helpers/wait.ts';

const dir = tempDir('sweep-browser-');
const config = join(dir, 'engine.toml');
const children: ChildProcess[] = [];
let browser: Browser | null = null;
let page: Page;
let engineUrl = '';
let dashUrl = '';
const errors: string[] = [];

function track(c: ChildProcess): { child: ChildProcess; out: () => string } {
  children.push(c);
  let text = '';
  c.stdout?.on('data', (b: Buffer) => (text += b.toString()));
  c.stderr?.on('data', (b: Buffer) => (text += b.toString()));
  return { child: c, out: () => text };
}

beforeAll(test, async () => {
  ensureBuilt();
  writeFileSync(
    config,
    `data_dir = ${JSON.stringify(join(dir, 'data'))}\n[simulation]\nsession_start = "10:30"\nsession_end = "10:40"\n[backtest]\npool_size = 2\n`,
  );
  const port = await freePort();
  engineUrl = `http://127.0.0.1:${port}`;
  // A recorded dataset for the forms' pickers (GET /api/datasets).
  mkdirSync(join(dir, 'data', 'market'), { recursive: true });
  copyFileSync(join(ROOT, 'test', 'fixtures', 'dbn', 'test_data.mbo.v3.dbn.zst'), join(dir, 'data', 'market', 'es.mbo.dbn.zst'));
  const engine = track(
    spawn(process.execPath, [ENGINE, '--config', config], { env: { ...process.env, PORT: String(port), RUST_LOG: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  await untilOk(`${engineUrl}/health`, { child: engine.child, context: engine.out });
  const dash = track(
    spawn(process.execPath, [join(ROOT, 'dist', 'dashboard.js')], {
      env: { ...process.env, DASHBOARD_PORT: '0', DASHBOARD_HOST: '127.0.0.1', ENGINE_URL: engineUrl, RUST_LOG: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const dashPort = await until('the dashboard listens', () => /"port":(\d+)[^\n]*dashboard listening/.exec(dash.out())?.[1]);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1680, height: 1050 } });
  page.on('pageerror', (e) => errors.push(e.message));
  dashUrl = `http://127.0.0.1:${dashPort}/`;
  await page.goto(dashUrl);
});

test.after(async () => {
  await browser?.close().catch(() => {});
  for (const c of children.reverse()) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  }
});

test('a 2 x 2 sweep from the form: sortable table of 4 points and a 2 x 2 heatmap', async () => {
  await page.fill('#sw-symbol', 'ES');
  await page.fill('#sw-startDate', '2024-01-02');
  await page.fill('#sw-endDate', '2024-01-02');
  await page.selectOption('select[name=grid-param-0]', 'spreadMultiplier');
  await page.fill('input[name=grid-values-0]', '1, 1.5');
  await page.selectOption('select[name=grid-param-1]', 'skewFactor');
  await page.fill('input[name=grid-values-1]', '0, 1');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.sweep-status.ok', { timeout: WAIT_MS * 3 });
  await page.waitForSelector('.sweep-table tbody tr:nth-child(4)', { timeout: WAIT_MS });
  assert.match((await page.textContent('.sweep-status')) ?? '', /completed/);
  // Rank, the two parameters, then P&L; the points that never traded (spreadMultiplier 1.5) stay last, unranked.
  const pnl = async () =>
    page.$$eval('.sweep-table tbody tr:not(.untraded)', (rows) => rows.map((r) => Number((r.children[3].textContent ?? '').replace(/[^0-9.-]/g, ''))));
  const desc = await pnl();
  assert.is(desc.length, 2);
  assert.equal(
    desc,
    [...desc].sort((a, b) => b - a),
    'sorted by P&L, highest first',
  );
  await page.click('.sweep-table th[data-column="total_pnl"]');
  const asc = await pnl();
  assert.equal(asc, [...desc].reverse(), 'a second click reverses');
  const all = [...asc, 0, 0];
  const cells = await page.$$eval('.sweep-heatmap td[data-value]', (tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
  assert.is(cells.length, 4);
  const byValue = (xs: number[]) => [...xs].sort((a, b) => a - b);
  assert.equal(byValue(cells.map((v) => Math.round(v * 100) / 100)), byValue(all), 'one cell per point (no third parameter), the same P&L as the table');
  assert.equal(errors, []);
});

test('untraded points greyed and listed apart, kill-switch trips shown, heatmap coloured around zero with a legend', async () => {
  // spreadMultiplier 1.5 never fills on the synthetic market; a 0.01 % drawdown limit trips at once.
  await page.selectOption('select[name=grid-param-0]', 'spreadMultiplier');
  await page.fill('input[name=grid-values-0]', '1.5, 1');
  await page.selectOption('select[name=grid-param-1]', 'maxDrawdown');
  await page.fill('input[name=grid-values-1]', '0.0001, 0.5');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.sweep-table th[data-column="param:maxDrawdown"]', { timeout: WAIT_MS * 3 });
  const note = (await page.textContent('.sweep-note'))!;
  assert.match(note, /^4 points, ranked by total P&L · 2 of 4 points never traded \(no fill: listed last, unranked\) · 1 stopped by the kill switch$/, note);
  const rows = await page.$$eval('.sweep-table tbody tr', (trs) =>
    trs.map((tr) => ({ cls: tr.className, cells: [...tr.children].map((td) => td.textContent ?? '') })),
  );
  assert.equal(
    [
      ...rows
        .slice(0, 2)
        .map((r) => r.cells[0])
        .sort(),
      ...rows.slice(2).map((r) => r.cells[0]),
    ],
    ['1', '2', '—', '—'],
    'ranked, then the two untraded points unranked',
  );
  assert.equal(
    rows.slice(2).map((r) => [r.cls, r.cells[1], r.cells.at(-1)]),
    [
      ['point untraded', '1.5', 'never traded'],
      ['point untraded', '1.5', 'never traded'],
    ],
  );
  assert.equal(
    rows
      .slice(0, 2)
      .map((r) => r.cells.at(-1))
      .sort(),
    ['tripped', '—'],
  );
  // Sorting by P&L ascending keeps the untraded rows last (their 0 would otherwise sit among the losses).
  await page.click('.sweep-table th[data-column="total_pnl"]');
  assert.equal(await page.$$eval('.sweep-table tbody tr', (trs) => trs.slice(2).map((tr) => tr.className)), ['point untraded', 'point untraded']);
  // Heatmap: untraded cells grey and saying so; the tripped cell marked; every loss red (hue 0); a legend in $.
  const cells = await page.$$eval('.sweep-heatmap td[data-value]', (tds) =>
    tds.map((td) => ({ v: Number(td.getAttribute('data-value')), cls: td.className, text: td.textContent ?? '', bg: td.getAttribute('style') ?? '' })),
  );
  assert.is(cells.length, 4);
  assert.is(cells.filter((c) => c.cls.includes('untraded') && c.text.startsWith('never traded')).length, 2);
  assert.is(cells.filter((c) => c.cls.includes('tripped') && c.text.includes('kill switch')).length, 1);
  for (const c of cells.filter((x) => !x.cls.includes('untraded'))) {
    // Chromium serialises hsl() as rgb(): red dominates a loss, green a gain.
    const [r, g] = /rgb\((\d+), (\d+), (\d+)\)/.exec(c.bg)!.slice(1).map(Number);
    assert.ok(c.v < 0 ? r > g : g > r, `cell ${c.v}: ${c.bg}`);
  }
  const legend = await page.$eval('.sweep-legend', (e) => ({
    kind: e.getAttribute('data-kind'),
    lo: Number(e.getAttribute('data-lo')),
    hi: Number(e.getAttribute('data-hi')),
    text: e.textContent ?? '',
  }));
  assert.is(legend.kind, 'diverging');
  assert.is(legend.lo, -legend.hi, 'centred on zero');
  assert.match(legend.text, /^P&L \$:/);
  assert.match(legend.text, /never traded/);
  assert.match(legend.text, /kill switch/);
  assert.match((await page.textContent('.p-sweep p.sub:last-of-type'))!, /2 of 4 points never traded/);
  assert.equal(errors, []);
});

test("a bad value: the engine's message naming grid.<parameter> and the value", async () => {
  await page.fill('input[name=grid-values-0]', '1, 0');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.sweep-status.error', { timeout: WAIT_MS });
  assert.match((await page.textContent('.sweep-status')) ?? '', /grid\.spreadMultiplier: expected a number > 0, got 0/);
  // ... and under the values it refers to, as the backtest form shows its errors.
  assert.match((await page.textContent('.p-sweep .field-error[data-field="grid-values-0"]')) ?? '', /expected a number > 0, got 0/);
  await page.fill('#sw-grid-values-0', '1, 1.5');
  assert.is(await page.textContent('.p-sweep .field-error[data-field="grid-values-0"]'), '', 'editing clears it');
});

test("the sweep form is the backtest form's kind: labelled fields, no value-like placeholders, a dataset picker, a cost estimate", async () => {
  const labels = await page.$$eval('.p-sweep .field .field-label', (ls) => ls.map((l) => l.textContent ?? ''));
  for (const want of ['Market data', 'Symbol', 'Start date', 'End date', 'Strategy', 'Parameter 1', 'Values 1, comma-separated', 'Holdout, trading days'])
    assert.ok(labels.includes(want), `label "${want}" in ${JSON.stringify(labels)}`);
  for (const api of ['startDate', 'endDate', 'holdoutDays', 'symbol']) assert.not.ok(labels.includes(api), `an API name as a label: ${api}`);
  // Same component as the backtest form: each input inside its labelled .field row, with its error line.
  assert.is(await page.locator('.p-sweep .field').count(), await page.locator('.p-sweep .field .field-error').count());
  assert.equal(
    await page.$$eval('.p-sweep input', (is) => is.map((i) => i.getAttribute('placeholder')).filter((x) => x)),
    [],
    'no placeholder reads like a value',
  );
  // The dataset picker of both forms lists the engine's recorded data (GET /api/datasets).
  for (const sel of ['#bt-dataset', '#sw-dataset']) {
    await page.click(sel); // focus reloads the list
    await until(`${sel} lists es.mbo.dbn.zst`, async () =>
      (await page.$$eval(`${sel} option`, (os) => os.map((o) => o.getAttribute('value')))).includes('es.mbo.dbn.zst'),
    );
  }
  // The cost before the run: 2 x 2 points over 2024-01-02..05 (4 trading days).
  await page.fill('#sw-startDate', '2024-01-02');
  await page.fill('#sw-endDate', '2024-01-05');
  await page.selectOption('select[name=grid-param-0]', 'spreadMultiplier');
  await page.fill('#sw-grid-values-0', '1, 1.5');
  await page.selectOption('select[name=grid-param-1]', 'skewFactor');
  await page.fill('#sw-grid-values-1', '0, 1');
  assert.is(await page.textContent('.sweep-estimate'), 'Cost: 4 points × 4 sessions = 16 backtest sessions');
  await page.fill('#sw-holdoutDays', '1');
  assert.is(await page.textContent('.sweep-estimate'), 'Cost: 4 points × 3 sessions + the best 3 × 1 holdout = 15 backtest sessions');
  await page.fill('#sw-holdoutDays', '');
  await page.fill('#sw-endDate', '2024-01-02');
});

test('progress and Cancel (DELETE /api/sweeps/{id}); past sweeps survive a reload; CSV link; open the best point as a backtest', async () => {
  await page.fill('#sw-endDate', '2024-01-05');
  await page.fill('#sw-grid-values-0', '1, 0.9, 0.8');
  await page.fill('#sw-grid-values-1', '0, 0.25, 0.5, 0.75, 1');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.p-sweep button.cancel:not([hidden])', { timeout: WAIT_MS });
  await until('progress shown', async () => /^running sw_/.test((await page.textContent('.sweep-status')) ?? ''));
  assert.ok(await page.isVisible('.p-sweep .bt-progress'));
  const id = /sw_[0-9A-Za-z_]+/.exec((await page.textContent('.sweep-status'))!)![0];
  await page.click('.p-sweep button.cancel');
  await page.waitForSelector('.sweep-status.error', { timeout: WAIT_MS * 2 });
  assert.match((await page.textContent('.sweep-status'))!, new RegExp(`sweep ${id}: cancelled`));
  assert.is(((await (await fetch(`${engineUrl}/api/sweeps/${id}`)).json()) as { status: string }).status, 'cancelled');
  assert.ok(await page.isHidden('.p-sweep button.cancel'));

  // Past sweeps: after a reload, the list has them; a click shows the completed one's points again.
  await page.reload();
  await page.waitForSelector('.sweep-runs tr.run.completed', { timeout: WAIT_MS });
  assert.ok((await page.locator(`.sweep-runs tr[data-id="${id}"]`).count()) === 1, 'the cancelled sweep is listed');
  const done = (await page.getAttribute('.sweep-runs tr.run.completed', 'data-id'))!;
  await page.click(`.sweep-runs tr[data-id="${done}"]`);
  await page.waitForSelector('.sweep-table tbody tr', { timeout: WAIT_MS });
  const api = (await (await fetch(`${engineUrl}/api/sweeps/${done}`)).json()) as {
    result: { points: { params: Record<string, number>; result: { total_pnl: number; total_fills: number } }[] };
  };
  assert.is(await page.locator('.sweep-table tbody tr').count(), api.result.points.length);

  // CSV: the same rows as the API's points, at full precision.
  const href = (await page.getAttribute('.sweep-csv', 'href'))!;
  assert.is(href, `/api/sweeps/${done}/csv`);
  const csv = await (await fetch(`${engineUrl}${href}`)).text();
  const lines = csv.trimEnd().split('\n');
  assert.is(lines.length, api.result.points.length + 1);
  const pnlCol = lines[0].split(',').indexOf('total_pnl');
  assert.equal(
    lines.slice(1).map((l) => Number(l.split(',')[pnlCol])),
    api.result.points.map((p) => p.result.total_pnl),
  );

  // Open the best point that traded as a backtest: same parameters, its report reachable.
  const traded = api.result.points.filter((p) => p.result.total_fills > 0).sort((a, b) => b.result.total_pnl - a.result.total_pnl);
  await page.click('.p-sweep button.open-best');
  await page.waitForSelector('.open-best-out a.report-link', { timeout: WAIT_MS * 3 });
  const bt = /bt_[0-9A-Za-z_]+/.exec((await page.textContent('.open-best-out'))!)![0];
  const run = (await (await fetch(`${engineUrl}/api/backtests/${bt}`)).json()) as { total_pnl: number; resolved: Record<string, unknown> };
  for (const [k, v] of Object.entries(traded[0].params)) assert.is(run.resolved[k], v, k);
  assert.is(run.total_pnl, traded[0].result.total_pnl, 'the backtest of the best point has its P&L');
  const report = await fetch(`${engineUrl}/api/backtests/${bt}/report`);
  assert.is(report.status, 200);
  await report.arrayBuffer();
  assert.equal(errors, []);
});

test("a 390 px phone: the sweep form's labels sit on their inputs and nothing is clipped", async () => {
  const phone = await browser!.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await phone.goto(dashUrl);
    await phone.waitForSelector('.p-sweep .field', { timeout: WAIT_MS });
    const bad = await phone.$$eval('.p-sweep .field', (rows) =>
      rows
        .map((r) => {
          const l = r.querySelector('.field-label')!.getBoundingClientRect();
          const i = r.querySelector('input, select')!.getBoundingClientRect();
          const panel = r.closest('.panel')!.getBoundingClientRect();
          // The label right above its input, inside the panel.
          const ok = i.top - l.bottom >= -1 && i.top - l.bottom < 8 && Math.abs(i.left - l.left) < 4 && i.right <= panel.right + 0.5;
          return ok
            ? ''
            : `${r.className}: label ${Math.round(l.left)},${Math.round(l.bottom)} input ${Math.round(i.left)},${Math.round(i.top)}-${Math.round(i.right)} panel ${Math.round(panel.right)}`;
        })
        .filter(Boolean),
    );
    assert.equal(bad, []);
    assert.ok(await phone.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), 'the page does not scroll sideways');
  } finally {
    await phone.close();
  }
});

test.run();
