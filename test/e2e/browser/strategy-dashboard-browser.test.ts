// Strategies in the dashboard, in a real browser (chromium via playwright-core) against a real
// engine started with a user strategy file (--strategy-file examples/strategies/imbalance-quoter.ts)
// and a real dashboard server, both on free ports of 127.0.0.1:
//   - the backtest form's strategy select lists what GET /api/strategies lists, the default chosen;
//   - switching strategy regenerates the parameter fields from the schema (and switching back
//     keeps what was typed);
//   - an out-of-range parameter shows the engine's error under its field;
//   - a run with the user strategy sends strategy + params (no built-in field), completes, and the
//     result and the run list name the strategy; the built-in's older fields still go by their names;
//   - the sweep form offers the selected strategy's params.NAME as axes and runs a grid over them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { StrategyList } from '../../../src/wire/strategies.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { ENGINE, ROOT, tempDir } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { freePort } from '../../helpers/net.ts';
import { until, untilOk, WAIT_MS } from '../../helpers/wait.ts';

const dir = tempDir('strategy-browser-');
const config = join(dir, 'engine.toml');
const children: ChildProcess[] = [];
let browser: Browser | null = null;
let page: Page;
let engineUrl = '';
const pageErrors: string[] = [];
/** Bodies of the POST /api/backtest requests the page sent. */
const sent: Record<string, unknown>[] = [];

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
    `data_dir = ${JSON.stringify(join(dir, 'data'))}\nlog_level = "warn"\n[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n[backtest]\npool_size = 2\n`,
  );
  const port = await freePort();
  engineUrl = `http://127.0.0.1:${port}`;
  const engine = track(
    spawn(process.execPath, [ENGINE, '--config', config, '--strategy-file', join(ROOT, 'examples/strategies/imbalance-quoter.ts')], {
      env: { ...process.env, PORT: String(port), RUST_LOG: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
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
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/backtest') sent.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>);
  });
  await page.goto(`http://127.0.0.1:${dashPort}/`);
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

/** The ids of the backtest form's generated parameter inputs, in order. */
const paramIds = (p: Page) => p.$$eval('#backtest .bt-params input', (xs) => xs.map((x) => x.id));

test("the strategy select lists the engine's strategies, the default chosen, with its fields", async () => {
  const list = (await (await fetch(`${engineUrl}/api/strategies`)).json()) as StrategyList;
  const names = list.strategies.map((s) => s.name);
  assert.ok(names.includes('imbalance_quoter') && names.includes('market_maker'), `engine lists ${names.join(', ')}`);
  await until('the strategies in the select', async () => (await page.$$eval('#bt-strategy option', (os) => os.length)) === names.length);
  assert.equal(await page.$$eval('#bt-strategy option', (os) => os.map((o) => (o as unknown as { value: string }).value)), names);
  assert.is(await page.inputValue('#bt-strategy'), list.default);
  assert.is(list.default, 'market_maker');
  // The built-in: its older request fields keep their ids, its other parameters are generated;
  // use_ml is the form's "Use ML model".
  assert.equal(await paramIds(page), [
    'bt-param-order_size',
    'bt-spreadMultiplier',
    'bt-skewFactor',
    'bt-inventoryLimit',
    'bt-param-vol_spread_factor',
    'bt-param-ml_weight',
  ]);
  assert.match((await page.textContent('.bt-strategy-note')) ?? '', /^market_maker 1\.0\.0 · built-in · Avellaneda-Stoikov/);
});

test('switching strategy regenerates the fields from its schema; switching back keeps what was typed', async () => {
  await page.fill('#bt-param-order_size', '2');
  await page.selectOption('#bt-strategy', 'imbalance_quoter');
  assert.equal(await paramIds(page), ['bt-param-size', 'bt-param-threshold', 'bt-param-max_position', 'bt-param-refresh_ms']);
  const attrs = (id: string) =>
    page.$eval(`#${id}`, (i) => {
      const x = i as unknown as { type: string; min: string; max: string; step: string; title: string; placeholder: string; value: string };
      return { type: x.type, min: x.min, max: x.max, step: x.step, title: x.title, placeholder: x.placeholder, value: x.value };
    });
  assert.equal(await attrs('bt-param-threshold'), {
    type: 'number',
    min: '0',
    max: '1',
    step: 'any',
    title: 'imbalance beyond which the opposite quote steps back · 0 … 1 · default 0.6',
    placeholder: '0 … 1',
    value: '',
  });
  assert.equal(await attrs('bt-param-size'), {
    type: 'number',
    min: '1',
    max: '100',
    step: '1',
    title: 'contracts per quote (contracts) · 1 … 100 · default 1',
    placeholder: '1 … 100',
    value: '',
  });
  assert.is(
    await page.getAttribute('#backtest .f-param-threshold .field-label', 'title'),
    'imbalance beyond which the opposite quote steps back · 0 … 1 · default 0.6',
  );
  // The label: the declared name, and its unit when it has one.
  assert.is(await page.textContent('#backtest .f-param-threshold .field-label'), 'threshold');
  assert.is(await page.textContent('#backtest .f-param-refresh_ms .field-label'), 'refresh_ms, ms');
  assert.ok(await page.isHidden('#bt-spreadMultiplier'), "the built-in's fields are gone");
  await page.selectOption('#bt-strategy', 'market_maker');
  assert.is(await page.inputValue('#bt-param-order_size'), '2');
  await page.fill('#bt-param-order_size', '');
  await page.selectOption('#bt-strategy', 'imbalance_quoter');
});

test("an out-of-range parameter: the engine's error under its field", async () => {
  await page.fill('#bt-symbol', 'ES');
  await page.fill('#bt-startDate', '2024-01-02');
  await page.fill('#bt-endDate', '2024-01-02');
  await page.fill('#bt-param-threshold', '5');
  await page.click('#backtest button[type="submit"]');
  const err = page.locator('.field-error[data-field="params.threshold"]');
  await until('the field error', async () => ((await err.textContent()) ?? '') !== '');
  // The engine's own words, as it answers the same request.
  const res = await fetch(`${engineUrl}/api/backtest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sent.at(-1)) });
  const api = (await res.json()) as { error: { fields: { field: string; message: string }[] } };
  assert.is(res.status, 400);
  assert.equal(api.error.fields, [{ field: 'params.threshold', message: 'expected a number >= 0 and <= 1, got 5' }]);
  assert.is(await err.textContent(), 'expected a number >= 0 and <= 1, got 5');
  assert.is(await page.getAttribute('#bt-param-threshold', 'aria-invalid'), 'true');
  assert.is(await page.textContent('.bt-message'), 'rejected: 1 field to fix');
  await page.fill('#bt-param-threshold', '0.5');
  assert.is(await err.textContent(), '', 'editing the field clears its error');
  // Text the browser cannot read as a number (its value is then empty) is flagged, not dropped.
  const before = sent.length;
  await page.fill('#bt-param-threshold', '');
  await page.focus('#bt-param-threshold');
  await page.keyboard.type('1e');
  await page.click('#backtest button[type="submit"]');
  assert.is(await err.textContent(), 'not a number: type digits, e.g. 0.5');
  assert.is(sent.length, before, 'nothing sent');
  await page.fill('#bt-param-threshold', '0.5');
});

test('a run with the user strategy: strategy + params sent, completed, its name in the result and the run list', async () => {
  await page.click('#backtest button[type="submit"]');
  await page.waitForSelector('.bt-message.ok', { timeout: 3 * WAIT_MS });
  const body = sent.at(-1)!;
  assert.is(body.strategy, 'imbalance_quoter');
  assert.equal(body.params, { threshold: 0.5 });
  for (const k of ['spreadMultiplier', 'skewFactor', 'inventoryLimit']) assert.not.ok(k in body, `${k} not sent for a user strategy`);
  const id = /bt_[0-9A-Za-z_]+/.exec((await page.textContent('.bt-result-title')) ?? '')?.[0];
  assert.ok(id);
  const run = (await (await fetch(`${engineUrl}/api/backtests/${id}`)).json()) as {
    strategy: { name: string; version: string; hash: string; params: Record<string, number> };
  };
  assert.equal(run.strategy.params, { size: 1, threshold: 0.5, max_position: 10, refresh_ms: 1000 });
  assert.is(await page.textContent('.bt-result-strategy'), 'strategy imbalance_quoter 1.0.0 · size 1 · threshold 0.5 · max_position 10 · refresh_ms 1000');
  assert.is(await page.getAttribute('.bt-result-strategy', 'title'), `content hash ${run.strategy.hash}`);
  const cell = page.locator(`#backtest tr[data-id="${id}"] td.strategy`);
  await until('the run in the list', async () => (await cell.count()) === 1);
  assert.is(await cell.textContent(), 'imbalance_quoter');
});

test('the built-in: its older fields go by their names, its other parameters in params', async () => {
  await page.selectOption('#bt-strategy', 'market_maker');
  await page.fill('#bt-spreadMultiplier', '1.25');
  await page.fill('#bt-param-vol_spread_factor', '0.25');
  await page.click('#backtest button[type="submit"]');
  await until(
    'a result',
    async () => /bt_/.test((await page.textContent('.bt-result-title')) ?? '') && (await page.isVisible('.bt-message.ok, .bt-message.warn')),
  );
  const body = sent.at(-1)!;
  assert.is(body.strategy, 'market_maker');
  assert.is(body.spreadMultiplier, 1.25);
  assert.equal(body.params, { vol_spread_factor: 0.25 });
  assert.match((await page.textContent('.bt-result-strategy')) ?? '', /^strategy market_maker 1\.0\.0 · .*spread_multiplier 1\.25 · .*vol_spread_factor 0\.25/);
});

test("the sweep form: the selected strategy's params.NAME axes, a 2 x 2 grid over them", async () => {
  const names = ((await (await fetch(`${engineUrl}/api/strategies`)).json()) as StrategyList).strategies.map((s) => s.name);
  await until('the sweep strategies', async () => (await page.$$eval('.p-sweep select[name=strategy] option', (os) => os.length)) === names.length);
  const axes = () =>
    page.$$eval('.p-sweep select[name=grid-param-0] option', (os) => os.map((o) => (o as unknown as { value: string }).value).filter((v) => v !== ''));
  assert.ok((await axes()).includes('spreadMultiplier'), 'the built-in by default');
  assert.is(await page.inputValue('.p-sweep select[name=grid-param-0]'), 'spreadMultiplier', "the first rows start on the built-in's first keys, as before");
  assert.is(await page.inputValue('.p-sweep select[name=grid-param-1]'), 'skewFactor');
  await page.selectOption('.p-sweep select[name=strategy]', 'imbalance_quoter');
  assert.equal(await axes(), [
    'params.size',
    'params.threshold',
    'params.max_position',
    'params.refresh_ms',
    'positionLimit',
    'maxDrawdown',
    'queueModel',
    'queuePower',
    'useML',
  ]);
  // The first two rows moved to the strategy's own first two parameters.
  assert.is(await page.inputValue('.p-sweep select[name=grid-param-0]'), 'params.size');
  assert.is(await page.inputValue('.p-sweep select[name=grid-param-1]'), 'params.threshold');
  await page.fill('#sw-symbol', 'ES');
  await page.fill('#sw-startDate', '2024-01-02');
  await page.fill('#sw-endDate', '2024-01-02');
  await page.fill('.p-sweep input[name=grid-values-0]', '1, 2');
  await page.fill('.p-sweep input[name=grid-values-1]', '2');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.sweep-status.error', { timeout: WAIT_MS });
  assert.match((await page.textContent('.sweep-status')) ?? '', /grid\.params\.threshold: expected a number >= 0 and <= 1, got 2/);
  await page.fill('.p-sweep input[name=grid-values-1]', '0.3, 0.7');
  await page.click('.p-sweep button[type=submit]');
  await page.waitForSelector('.sweep-table tbody tr:nth-child(4)', { timeout: WAIT_MS * 3 });
  assert.match((await page.textContent('.sweep-status')) ?? '', /completed/);
  // Rank first, then the two parameters.
  const heads = await page.$$eval('.sweep-table th', (ths) => ths.slice(1, 3).map((th) => th.getAttribute('data-column')));
  assert.equal(heads, ['param:params.size', 'param:params.threshold']);
  const points = await page.$$eval('.sweep-table tbody tr', (rows) => rows.map((r) => `${r.children[1].textContent}/${r.children[2].textContent}`).sort());
  assert.equal(points, ['1/0.3', '1/0.7', '2/0.3', '2/0.7']);
  assert.equal(pageErrors, []);
});

test.run();
