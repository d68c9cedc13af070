// The dashboard with an engine that has an API token, in a real browser (Debian's chromium through
// playwright-core): the backtest form asks for the token on the engine's 401, keeps it in the
// tab's sessionStorage only, and the dashboard passes it through (it adds none of its own).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BacktestService } from '../../../src/backtest-service/service.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { packageRoot } from '../../../src/core/paths.ts';
import { createDashboardApp } from '../../../src/dashboard/server/app.ts';
import { startHttpServer, type HttpServer } from '../../../src/http/server.ts';
import { FakeRuntime } from '../../helpers/fake-runtime.ts';
import { beforeAll } from '../../helpers/hooks.ts';
import { capturingLogger } from '../../helpers/log.ts';
import { until, WAIT_MS } from '../../helpers/wait.ts';

const TOKEN = 'dashboard-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'dashboard-token-'));
let engine: HttpServer;
let dashboard: Server;
let browser: Browser;
let page: Page;
let url = '';

beforeAll(test, async () => {
  const config = parseConfig(`data_dir = ${JSON.stringify(dir)}\n[backtest]\npool_size = 1\n`, 'dashboard-token.toml');
  const { logger } = capturingLogger('warn');
  const backtests = await BacktestService.open({ config, logger, poolSize: 1 });
  engine = await startHttpServer(
    { runtime: new FakeRuntime({ symbols: ['ESH24'] }), config, logger, backtests },
    { port: 0, host: '127.0.0.1', latencyDrainMs: 0, defaultMetrics: false, apiToken: TOKEN },
  );
  const { app } = createDashboardApp({ engineUrl: `http://127.0.0.1:${engine.port}`, staticDir: join(packageRoot(), 'dist', 'dashboard'), logger });
  dashboard = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((r) => dashboard.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(dashboard.address() as AddressInfo).port}/`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('#bt-initialCapital', { timeout: WAIT_MS });
});

test.after(async () => {
  await browser?.close();
  dashboard?.closeAllConnections();
  await new Promise<void>((r) => (dashboard ? dashboard.close(() => r()) : r()));
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

const message = async () => (await page.textContent('.bt-message')) ?? '';
const stored = () => page.evaluate<[string | null, number]>(`[sessionStorage.getItem('engine-api-token'), localStorage.length]`);

async function submitAndWait(what: RegExp): Promise<string> {
  await page.click('#backtest button[type="submit"]');
  return until(`the form to say ${what}`, async () => {
    const m = await message();
    return what.test(m) ? m : null;
  });
}

test('no token field until the engine asks; a 401 shows it and says why', async () => {
  assert.ok(await page.isHidden('#bt-token'), 'hidden while the engine has not asked');
  await page.fill('#bt-initialCapital', '-5');
  await submitAndWait(/requires its API token/);
  assert.ok(await page.isVisible('#bt-token'));
  assert.equal(await stored(), [null, 0]);
});

test('a wrong token is refused and not kept', async () => {
  await page.fill('#bt-token', `${TOKEN}-wrong`);
  await submitAndWait(/refused this API token/);
  assert.equal(await stored(), [null, 0], 'a refused token is dropped');
  assert.is(await page.inputValue('#bt-token'), '');
});

test('the right token passes through the dashboard to the engine, kept in sessionStorage only', async () => {
  await page.fill('#bt-token', TOKEN);
  await submitAndWait(/fields? to fix/);
  const err = await page.textContent('.field-error[data-field="initialCapital"]');
  assert.match(err ?? '', /got -5/, 'the engine validated the body: the token was accepted');
  assert.equal(await stored(), [TOKEN, 0], 'sessionStorage holds it; localStorage holds nothing');
  // Later requests of the tab carry it without typing it again.
  await page.fill('#bt-token', '');
  await submitAndWait(/fields? to fix/);
});

test.run();
