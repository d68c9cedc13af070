// The strategy port at the engine: quote() targets on several levels reconciled with the working
// orders (queue priority kept, every cancel before any new order), imperative orders and the
// strategy's order events, the kill switch and the reduce-only window over any strategy, timers
// ordered with market data as a live engine would see them, a strategy that throws (a backtest
// session fails naming it; the live engine stops it and goes on), and parameters checked against
// their declaration with errors naming the key, the value and the range.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { ReplaySource, recordMarket } from '../../../src/market/replay-source.ts';
import { runSession } from '../../../src/backtest/session.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { ASK, BID, ER_ACK, ER_CANCELED, ER_FILL, EV_STRIDE, MD_ADD, MD_CANCEL, OM_CANCEL, OM_NEW } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { compileStrategyFile } from '../../../src/strategy/load.ts';
import { applyParams, defaults } from '../../../src/strategy/params.ts';
import { FLAG_IOC, FLAG_POST_ONLY, ORDER_ACK, ORDER_FILL, type StrategyDefinition } from '../../../src/strategy/port.ts';
import { definitionProblems } from '../../../src/strategy/registry.ts';
import { configuredStrategyProblem } from '../../../src/strategy/setup.ts';
import { StrategyError } from '../../../src/trading/trader.ts';
import { C_SIGNAL } from '../../../src/trading/trader-slots.ts';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { ensureBuilt } from '../../helpers/build.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';
import { CLOSE, MS, OPEN, traderHarness } from '../../helpers/trader-harness.ts';

function def(over: Partial<StrategyDefinition>): StrategyDefinition {
  return { name: 'test_strategy', version: '0', description: 'test', wakes: 'book', params: {}, create: () => ({}), ...over };
}

function setup(d: StrategyDefinition, strategyErrors: 'throw' | 'stop' = 'throw') {
  const h = traderHarness({ strategy: { def: d, params: defaults(d.params) }, strategyErrors, initialCapital: 1_000_000, flattenMinutes: 5 });
  // The opening book (touch 20000 / 20001), then one event after the open.
  h.openBook();
  h.market(OPEN + MS, MD_ADD, BID, 19_990, 1);
  return h;
}

/** Two levels a side, one tick apart, from the touch. */
const ladder = def({
  levels: 2,
  create: () => ({
    quote(c, q) {
      q.price[0] = c.bestBid;
      q.price[1] = c.bestBid - 1;
      q.price[2] = c.bestAsk;
      q.price[3] = c.bestAsk + 1;
      q.size.fill(2);
    },
  }),
});

test('quote() targets on two levels: four post-only orders; the same targets send nothing; a move keeps the order still wanted', () => {
  const { market, sent, report } = setup(ladder);
  const first = sent();
  assert.equal(
    first.map((m) => [m.type, m.side, m.price, m.qty, m.flags]),
    [
      [OM_NEW, BID, 20_000, 2, FLAG_POST_ONLY],
      [OM_NEW, BID, 19_999, 2, FLAG_POST_ONLY],
      [OM_NEW, ASK, 20_001, 2, FLAG_POST_ONLY],
      [OM_NEW, ASK, 20_002, 2, FLAG_POST_ONLY],
    ],
  );
  for (const m of first) report(OPEN + 2 * MS, ER_ACK, m);
  market(OPEN + 3 * MS, MD_ADD, BID, 19_990, 5);
  assert.equal(sent(), [], 'unchanged targets: nothing sent, queue places kept');
  // The ask touch moves up a tick: 20002 is still wanted (kept), 20001 is cancelled, 20003 is new.
  market(OPEN + 4 * MS, MD_CANCEL, ASK, 20_001, 40);
  const moved = sent();
  assert.equal(
    moved.map((m) => [m.type, m.side, m.price]),
    [
      [OM_CANCEL, ASK, 20_001],
      [OM_NEW, ASK, 20_003],
    ],
  );
  assert.is(moved[0].id, first[2].id);
});

test('imperative orders: IOC and post-only flags reach the exchange, order events reach the strategy, the kill switch refuses sends', () => {
  const events: [number, number, number][] = [];
  let sentId = 0;
  const taker = def({
    levels: 0,
    create: () => ({
      onMarket(c) {
        if (sentId === 0) sentId = c.send(BID, c.bestAsk, 3, FLAG_IOC);
      },
      onOrder(_c, ev) {
        events.push([ev.type, ev.id, ev.qty]);
      },
    }),
  });
  const { e, sent, report } = setup(taker);
  const out = sent();
  assert.equal(
    out.map((m) => [m.type, m.side, m.price, m.qty, m.flags]),
    [[OM_NEW, BID, 20_001, 3, FLAG_IOC]],
  );
  assert.is(out[0].id, sentId);
  report(OPEN + 2 * MS, ER_ACK, out[0]);
  report(OPEN + 3 * MS, ER_FILL, out[0], 3);
  assert.equal(events, [
    [ORDER_ACK, sentId, 0],
    [ORDER_FILL, sentId, 3],
  ]);
  assert.is(e.portfolio.position, 3);
  assert.is(e.ctx.lastFillQty, 3);
  assert.is(e.ctx.lastFillPrice, 20_001);
  e.kill(OPEN + 4 * MS, 'TEST', 'test');
  assert.is(e.ctx.send(ASK, 20_001, 1, FLAG_POST_ONLY), 0, 'no order after the kill switch');
  assert.is(e.ctx.orderState(sentId), 0, 'a filled order has ended');
});

test('the reduce-only window refuses orders that would grow the position, whatever the strategy', () => {
  const tries: number[] = [];
  const s = def({
    levels: 0,
    create: () => ({
      onMarket(c) {
        if (c.reduceOnly && tries.length === 0) tries.push(c.send(BID, c.bestBid, 1, FLAG_POST_ONLY), c.send(ASK, c.bestAsk, 1, FLAG_POST_ONLY));
      },
    }),
  });
  const { market, sent } = setup(s);
  sent();
  market(CLOSE - 60_000 * MS, MD_ADD, BID, 19_990, 1);
  assert.equal(tries, [0, 0], 'flat in the last minutes: neither side may be opened');
  assert.equal(sent(), []);
});

test('timers fire at their engine time, ordered with market data as live: a session records them in time order', () => {
  const c = shippedConfigNoModel();
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02' }, c);
  if (!v.ok) throw new Error('request');
  const spec = sessionSpecs(v.request, c, false)[0];
  const rec = recordMarket(
    new MarketGenerator(contractForRoot('ES'), spec.date, spec.seed, { sessionStartNs: spec.sessionStartNs, sessionEndNs: spec.sessionEndNs, activity: 1 }),
    RecordRing.allocate(EV_STRIDE, 1 << 16, false),
    60_000,
  );
  const log: [string, number][] = [];
  const timed = def({
    wakes: 'book',
    levels: 0,
    create: (_p, ctx) => {
      ctx.wakeEvery(250 * MS, 3);
      ctx.wakeAt(ctx.sessionStartNs + 1_000 * MS + 7, 5);
      return {
        onTimer: (k, id) => void log.push([`timer${id}`, k.now]),
        onMarket: (k) => void log.push(['market', k.now]),
      };
    },
  });
  runSession(
    { ...spec, strategy: { name: 'test_strategy', version: '0', hash: 'x', params: {}, file: null } },
    { source: new ReplaySource(rec.events, rec.count), strategyDef: timed },
  );
  const ticks = log.filter(([k]) => k === 'timer3').map(([, t]) => t);
  assert.ok(ticks.length > 10, `${ticks.length} ticks`);
  ticks.forEach((t, i) => assert.is(t, spec.sessionStartNs + (i + 1) * 250 * MS, `tick ${i} at its time`));
  assert.equal(
    log.filter(([k]) => k === 'timer5').map(([, t]) => t),
    [spec.sessionStartNs + 1_000 * MS + 7],
  );
  for (let i = 1; i < log.length; i++) assert.ok(log[i][1] >= log[i - 1][1], `time order at ${i}: ${log[i - 1]} then ${log[i]}`);
});

test('a strategy that throws: the session fails naming the strategy, the callback, the date and the exchange time', () => {
  const c = shippedConfigNoModel();
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02' }, c);
  if (!v.ok) throw new Error('request');
  const spec = sessionSpecs(v.request, c, false)[0];
  const rec = recordMarket(
    new MarketGenerator(contractForRoot('ES'), spec.date, spec.seed, { sessionStartNs: spec.sessionStartNs, sessionEndNs: spec.sessionEndNs, activity: 1 }),
    RecordRing.allocate(EV_STRIDE, 1 << 16, false),
    20_000,
  );
  let n = 0;
  const bad = def({
    name: 'flaky',
    create: () => ({
      quote() {
        if (++n === 50) throw new Error('boom');
      },
    }),
  });
  try {
    runSession(
      { ...spec, strategy: { name: 'flaky', version: '0', hash: 'x', params: {}, file: null } },
      { source: new ReplaySource(rec.events, rec.count), strategyDef: bad },
    );
    assert.unreachable('the session should fail');
  } catch (e) {
    const m = (e as Error).message;
    assert.match(
      m,
      /^session ES 2024-01-02: strategy flaky threw in quote\(\) at exchange time 2024-01-02T14:3\d:\d\d\.\d{9}Z \(\d+ ns after New York midnight\): boom$/,
    );
  }
});

test("a throw in the standing promise's stands() is the strategy's error like any callback's", () => {
  let settled = false;
  const liar = def({
    name: 'liar',
    create: () => {
      const self = {
        quote(c: { bestBid: number; bestAsk: number }, q: { price: Float64Array; size: Float64Array }) {
          q.price[0] = c.bestBid;
          q.price[1] = c.bestAsk;
          q.size.fill(1);
        },
        standing: {
          settle: () => void (settled = true),
          stands: (): boolean => {
            throw new Error('boom in stands');
          },
          bounds: (out: Float64Array, at: number) => void out.fill(Infinity, at, at + 2),
        },
      };
      return self;
    },
  });
  const { e, market, sent, report } = setup(liar);
  for (const m of sent()) report(OPEN + 2 * MS, ER_ACK, m);
  assert.throws(
    () => market(OPEN + 3 * MS, MD_ADD, BID, 19_990, 5),
    (err: unknown) => err instanceof StrategyError && err.callback === 'standing.stands' && err.strategy === 'liar' && /boom in stands/.test(err.message),
  );
  assert.ok(settled);
  assert.is(e.failed, null, "'throw' mode: the session fails, nothing is swallowed");
});

test("a promise's bands are checked by the engine at each event: inside them quote() is not asked, outside it is", () => {
  let quotes = 0;
  let band = [0, 1, NaN, NaN];
  const banded = def({
    name: 'banded',
    create: () => ({
      quote(c: { bestBid: number; bestAsk: number }, q: { price: Float64Array; size: Float64Array }) {
        quotes++;
        q.price[0] = c.bestBid;
        q.price[1] = c.bestAsk;
        q.size.fill(1);
      },
      standing: {
        settle: () => {},
        bands: (out: Float64Array, at: number) => void out.set(band, at),
        bounds: (out: Float64Array, at: number) => void out.fill(Infinity, at, at + 2),
      },
    }),
  });
  const { e, market, sent, report } = setup(banded);
  for (const m of sent()) report(OPEN + 2 * MS, ER_ACK, m);
  const asked = quotes;
  e.slots[C_SIGNAL] = 0.5;
  market(OPEN + 3 * MS, MD_ADD, BID, 19_990, 5);
  market(OPEN + 4 * MS, MD_ADD, BID, 19_990, 5);
  assert.is(quotes, asked, 'signal within [0, 1]: the decision stands, quote() not asked');
  e.slots[C_SIGNAL] = 1.5;
  market(OPEN + 5 * MS, MD_ADD, BID, 19_990, 5);
  assert.is(quotes, asked + 1, 'signal outside the band: quote() asked again');
  // (NaN, NaN): stands only without a signal; (-Infinity, Infinity): any signal or none.
  band = [NaN, NaN, NaN, NaN];
  market(OPEN + 6 * MS, MD_ADD, BID, 19_990, 5); // settles the new decision with these bands
  const before = quotes;
  e.slots[C_SIGNAL] = NaN;
  market(OPEN + 7 * MS, MD_ADD, BID, 19_990, 5);
  assert.is(quotes, before, 'no signal, none at the decision: stands');
  e.slots[C_SIGNAL] = 0.1;
  market(OPEN + 8 * MS, MD_ADD, BID, 19_990, 5);
  assert.is(quotes, before + 1, 'a signal where the decision had none: asked');
  band = [-Infinity, Infinity, NaN, NaN];
  market(OPEN + 9 * MS, MD_ADD, BID, 19_990, 5);
  const last = quotes;
  e.slots[C_SIGNAL] = NaN;
  market(OPEN + 10 * MS, MD_ADD, BID, 19_990, 5);
  e.slots[C_SIGNAL] = 1e9;
  market(OPEN + 11 * MS, MD_ADD, BID, 19_990, 5);
  assert.is(quotes, last, 'an unbounded band: stands with any signal or none');
});

test('in the live engine a strategy that throws is stopped: its orders cancelled, STRATEGY_ERROR raised, the engine goes on', () => {
  let calls = 0;
  const bad = def({
    wakes: 'touch',
    create: () => ({
      quote(c, q) {
        calls++;
        if (calls === 2) throw new Error('bad state');
        q.price[0] = c.bestBid;
        q.price[1] = c.bestAsk;
        q.size.fill(1);
      },
    }),
  });
  const { e, market, sent, report } = setup(bad, 'stop');
  const opening = sent();
  assert.is(opening.length, 2);
  for (const m of opening) report(OPEN + 2 * MS, ER_ACK, m);
  market(OPEN + 3 * MS, MD_CANCEL, ASK, 20_001, 40); // the touch moves: quote() again, which throws
  assert.equal(
    sent().map((m) => m.type),
    [OM_CANCEL, OM_CANCEL],
    'its orders are cancelled',
  );
  assert.ok(e.failed instanceof StrategyError);
  const alert = e.alertsSince(0).find((a) => a.code === 'STRATEGY_ERROR');
  assert.ok(alert, 'alert raised');
  assert.match(alert!.message, /strategy test_strategy threw in quote\(\).*bad state/);
  for (const m of opening) report(OPEN + 4 * MS, ER_CANCELED, m);
  market(OPEN + 5 * MS, MD_CANCEL, ASK, 20_002, 40);
  market(OPEN + 6 * MS, MD_ADD, ASK, 20_001, 40);
  assert.is(calls, 2, 'not called again');
  assert.equal(sent(), []);
  assert.is(e.eventsProcessed, 14, 'market data goes on');
});

test('parameters: defaults, values within bounds, errors naming the key, the value and the range', () => {
  const decl = {
    k: { type: 'integer', default: 3, min: 1, max: 10, unit: 'ticks', description: 'k' },
    w: { type: 'number', default: 0.5, min: 0, exclusiveMin: true, max: 1, description: 'w' },
    on: { type: 'boolean', default: false, description: 'on' },
  } as const;
  assert.equal(applyParams(decl, defaults(decl), { k: 4, on: true }, 'params'), { ok: true, values: { k: 4, w: 0.5, on: true } });
  const bad = applyParams(decl, defaults(decl), { k: 2.5, w: 0, on: 1, zz: 1 }, 'params');
  assert.equal(bad.ok ? [] : bad.errors.map((x) => x.field), ['params.k', 'params.w', 'params.on', 'params.zz']);
  const msgs = bad.ok ? [] : bad.errors.map((x) => x.message);
  assert.match(msgs[0], 'expected an integer >= 1 and <= 10 (ticks), got 2.5');
  assert.match(msgs[1], 'expected a number > 0 and <= 1, got 0');
  assert.match(msgs[3], 'unknown parameter (known: k, w, on)');
});

test('definitions and config tables are checked: a bad definition, an unknown [strategy.<name>], a bad value in it', () => {
  assert.equal(definitionProblems(ladder), []);
  const probs = definitionProblems({
    ...ladder,
    name: 'Bad-Name',
    wakes: 'sometimes',
    levels: 99,
    params: { x: { type: 'number', default: 5, min: 0, max: 1, description: 'x' } },
  });
  assert.ok(
    probs.some((p) => p.startsWith('name:')) &&
      probs.some((p) => p.startsWith('wakes:')) &&
      probs.some((p) => p.startsWith('levels:')) &&
      probs.some((p) => p.startsWith('params.x.default')),
    probs.join('\n'),
  );
  const unknown = parseConfig('[strategy.nosuch]\nx = 1\n', 't.toml');
  assert.match(configuredStrategyProblem(unknown)!, "[strategy.nosuch]: no strategy named 'nosuch' is loaded");
  const builtin = parseConfig('[strategy.market_maker]\nspread_multiplier = 2\n', 't.toml');
  assert.match(configuredStrategyProblem(builtin)!, "the built-in's parameters are the [strategy] keys");
  const name = parseConfig('[strategy]\nname = "nosuch"\n', 't.toml');
  assert.match(configuredStrategyProblem(name)!, 'strategy.name = "nosuch": expected a loaded strategy');
});

test('a strategy file that does not compile, or exports no definition, is refused naming the file and the line', async () => {
  const dir = tempDir('strategy-load-');
  const syntax = join(dir, 'broken.ts');
  writeFileSync(syntax, 'export default {\n  name: "x",\n  version: ,\n};\n');
  await compileStrategyFile(syntax).then(
    () => assert.unreachable('compiled'),
    (e: Error) => assert.match(e.message, `strategy file ${syntax}:3:`),
  );
  const empty = join(dir, 'empty.ts');
  writeFileSync(empty, 'export const x = 1;\n');
  await compileStrategyFile(empty).then(
    () => assert.unreachable('loaded'),
    (e: Error) => assert.match(e.message, 'expected the default export to be a strategy definition'),
  );
});

test('the CLI: a config naming a strategy not loaded, or a bad file, exits 1 naming the key or the file; a bad --param exits 2 naming it', () => {
  ensureBuilt();
  const unknown = runCli(['--backtest', '--config', writeConfig('[strategy]\nname = "nosuch"\n')]);
  assert.is(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, 'strategy.name = "nosuch": expected a loaded strategy');
  const missing = runCli(['--backtest', '--strategy-file', '/nonexistent/strategy.ts']);
  assert.is(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, 'strategy file /nonexistent/strategy.ts: no such file');
  const param = runCli(['--backtest', '--param', 'spread_multiplier=0']);
  assert.is(param.code, 2, param.stderr);
  assert.match(param.stderr, '--param spread_multiplier: expected a number > 0 and <= 100, got 0');
  const path = runCli(['--backtest', '--strategy', '../x.mjs']);
  assert.is(path.code, 2, path.stderr);
  assert.match(path.stderr, 'expected a strategy name');
});

test.run();
