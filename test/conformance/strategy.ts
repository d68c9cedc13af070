// The strategy port's conformance suite (src/strategy/port.ts): what every strategy must hold,
// observed on whole synthetic sessions in this process. Its declaration is valid; the same session
// gives a byte-identical result (no state kept between sessions, no clock or Math.random); it acts
// only through the engine, so the risk limits hold whatever it asks for (no order above the order
// size limit, no position past the position limit, nothing new after the kill switch); and it
// reads only what StrategyContext declares (never the simulator's exchange side), which a
// recording proxy around its context checks at every read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sessionSpecs, validateBacktestRequest } from '../../src/backtest/request.ts';
import { runSession } from '../../src/backtest/session.ts';
import type { SessionSpec } from '../../src/backtest/session-spec.ts';
import type { EngineConfig } from '../../src/config/schema.ts';
import { BID, ER_FILL, ER_QTY, ER_SIDE, ER_TYPE, OM_NEW, OM_QTY, OM_SENT, OM_TYPE } from '../../src/core/events.ts';
import type { Strategy, StrategyContext, StrategyDefinition } from '../../src/strategy/port.ts';
import { definitionProblems } from '../../src/strategy/registry.ts';
import { ROOT } from '../helpers/cli.ts';
import { shippedConfigNoModel } from '../helpers/shipped-config.ts';

/**
 * The members StrategyContext declares, read from port.ts itself: the interface is the one
 * definition of what a strategy may see, so a member added there is allowed here at once.
 */
export function contextMembers(): Set<string> {
  const src = readFileSync(join(ROOT, 'src/strategy/port.ts'), 'utf8');
  const start = src.indexOf('export interface StrategyContext {');
  const body = src.slice(start, src.indexOf('\n}\n', start));
  const names = [...body.matchAll(/^ {2}(?:readonly )?([A-Za-z_]\w*)\s*[(:?]/gm)].map((m) => m[1]);
  return new Set(names);
}

function config(): EngineConfig {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '10:00';
  c.trading.max_order_size = 2;
  return c;
}

function spec(c: EngineConfig, body: Record<string, unknown>): SessionSpec {
  const v = validateBacktestRequest({ symbol: 'ES', startDate: '2024-01-02', ...body }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return sessionSpecs(v.request, c, false)[0];
}

/** A context that records the name of every member read through it. */
function recording(ctx: StrategyContext, reads: Set<string>): StrategyContext {
  return new Proxy(ctx, {
    get(target, key) {
      reads.add(String(key));
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
    set(_target, key) {
      throw new Error(`the strategy wrote ctx.${String(key)}`);
    },
  });
}

/** The definition with every context it is handed (at create and in each callback) recorded. */
function recorded(def: StrategyDefinition, reads: Set<string>): StrategyDefinition {
  return {
    ...def,
    create(params, ctx) {
      const s = def.create(params, recording(ctx, reads));
      const w: { -readonly [K in keyof Strategy]: Strategy[K] } = {};
      if (s.quote) w.quote = (c, q) => s.quote!(recording(c, reads), q);
      if (s.onMarket) w.onMarket = (c) => s.onMarket!(recording(c, reads));
      if (s.onTimer) w.onTimer = (c, id) => s.onTimer!(recording(c, reads), id);
      if (s.onOrder) w.onOrder = (c, ev) => s.onOrder!(recording(c, reads), ev);
      const p = s.standing;
      if (p) {
        w.standing = {
          settle: (c) => p.settle(recording(c, reads)),
          bounds: (out, at) => p.bounds(out, at),
          ...(p.stands ? { stands: (c: StrategyContext) => p.stands!(recording(c, reads)) } : {}),
          ...(p.bands ? { bands: (out: Float64Array, at: number) => p.bands!(out, at) } : {}),
        };
      }
      return w;
    },
  };
}

/** Runs the port's contract against one registered strategy. */
export function describeStrategy(def: StrategyDefinition): void {
  const name = def.name;

  test(`strategy ${name}: its definition is valid (name, wakes, levels, parameters and their defaults)`, () => {
    assert.equal(definitionProblems(def), []);
  });

  test(`strategy ${name}: the same session twice gives a byte-identical result; another seed another`, () => {
    const c = config();
    const s = spec(c, { strategy: name, seed: 5 });
    const a = JSON.stringify(runSession(s));
    assert.is(JSON.stringify(runSession(s)), a);
    assert.is.not(JSON.stringify(runSession(spec(c, { strategy: name, seed: 6 }))), a);
  });

  test(`strategy ${name}: the risk limits hold whatever it asks: order size, position, the kill switch`, () => {
    const c = config();
    let orders = 0,
      biggest = 0,
      pos = 0,
      worst = 0,
      lastNew = -Infinity;
    const r = runSession(spec(c, { strategy: name, seed: 3, positionLimit: 1 }), {
      taps: {
        order(d, off) {
          if (d[off + OM_TYPE] !== OM_NEW) return;
          orders++;
          biggest = Math.max(biggest, d[off + OM_QTY]);
          lastNew = Math.max(lastNew, d[off + OM_SENT]);
        },
        report(d, off) {
          if (d[off + ER_TYPE] !== ER_FILL) return;
          pos += d[off + ER_SIDE] === BID ? d[off + ER_QTY] : -d[off + ER_QTY];
          worst = Math.max(worst, Math.abs(pos));
        },
      },
    });
    assert.ok(orders > 0, `${name} sent no order in half an hour: nothing was checked`);
    assert.ok(biggest <= c.trading.max_order_size, `an order of ${biggest} contracts reached the exchange (max_order_size ${c.trading.max_order_size})`);
    assert.ok(worst <= 1, `the position reached ${worst} with positionLimit 1`);
    assert.is(r.maxAbsPosition, worst);

    // A drawdown limit any session's noise passes: the switch trips, and nothing new follows it.
    lastNew = -Infinity;
    const k = runSession(spec(c, { strategy: name, seed: 3, maxDrawdown: 0.000001 }), {
      taps: {
        order(d, off) {
          if (d[off + OM_TYPE] === OM_NEW) lastNew = Math.max(lastNew, d[off + OM_SENT]);
        },
      },
    });
    if (k.killSwitch.tripped) assert.ok(lastNew <= k.killSwitch.ts, `a new order at ${lastNew} after the kill switch tripped at ${k.killSwitch.ts}`);
  });

  test(`strategy ${name}: it reads only what StrategyContext declares, and reading through a proxy changes nothing`, () => {
    const c = config();
    const s = spec(c, { strategy: name, seed: 5 });
    const reads = new Set<string>();
    const watched = runSession(s, { strategyDef: recorded(def, reads) });
    const allowed = contextMembers();
    assert.ok(allowed.size > 30, `StrategyContext declares ${allowed.size} members`);
    assert.ok(reads.size > 0, 'no read of the context was seen');
    assert.equal(
      [...reads].filter((k) => !allowed.has(k)),
      [],
      'members read that StrategyContext does not declare',
    );
    assert.is(JSON.stringify(watched), JSON.stringify(runSession(s)));
  });
}
