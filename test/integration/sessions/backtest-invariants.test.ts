// Invariants of the backtest driver over whole sessions, observed on the links between engine
// and exchange: exact latencies, causality, risk limits and the kill switch, across many seeds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { EngineConfig } from '../../../src/config/schema.ts';
import { sessionSpecs, validateBacktestRequest } from '../../../src/backtest/request.ts';
import { runSession } from '../../../src/backtest/session.ts';
import type { SessionSpec } from '../../../src/backtest/session-spec.ts';
import type { Trader } from '../../../src/trading/trader.ts';
import {
  BID,
  CANCEL_SELF_MATCH,
  ER_ACK,
  ER_CANCELED,
  ER_EXCH_TS,
  ER_FILL,
  ER_ID,
  ER_LEAVES,
  ER_PRICE,
  ER_QTY,
  ER_REASON,
  ER_SIDE,
  ER_TS,
  ER_TYPE,
  EV_RECV,
  EV_TS,
  OM_NEW,
  OM_QTY,
  OM_SENT,
  OM_TS,
  OM_TYPE,
} from '../../../src/core/events.ts';
import { shippedConfigNoModel } from '../../helpers/shipped-config.ts';

function config(mut: (c: EngineConfig) => void): EngineConfig {
  const c = shippedConfigNoModel();
  c.simulation.session_start = '09:30';
  c.simulation.session_end = '09:50';
  mut(c);
  return c;
}

function spec(c: EngineConfig, body: Record<string, unknown>): SessionSpec {
  const v = validateBacktestRequest({ symbol: 'ES', ...body }, c);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return sessionSpecs(v.request, c, false)[0];
}

test('zero jitter: market data arrives exactly 50 µs late, orders exactly 100 µs, reports exactly 100 µs; the engine acts only on what it has received', () => {
  const c = config((c) => {
    c.latency.jitter_ns = 0;
  });
  const received = new Set<number>();
  let lastRecv = -Infinity;
  let orders = 0,
    reports = 0,
    events = 0;
  const bad: string[] = [];
  runSession(spec(c, {}), {
    taps: {
      marketData(d, off) {
        events++;
        if (d[off + EV_RECV] - d[off + EV_TS] !== 50_000) bad.push(`md latency ${d[off + EV_RECV] - d[off + EV_TS]}`);
        if (d[off + EV_RECV] < lastRecv) bad.push('md out of order');
        lastRecv = d[off + EV_RECV];
        received.add(d[off + EV_RECV]);
      },
      report(d, off) {
        reports++;
        if (d[off + ER_TS] - d[off + ER_EXCH_TS] !== 100_000) bad.push(`report latency ${d[off + ER_TS] - d[off + ER_EXCH_TS]}`);
        received.add(d[off + ER_TS]);
      },
      order(d, off) {
        orders++;
        if (d[off + OM_TS] - d[off + OM_SENT] !== 100_000) bad.push(`entry latency ${d[off + OM_TS] - d[off + OM_SENT]}`);
        // Sent at the instant the engine received an input, never before it had it.
        if (!received.has(d[off + OM_SENT])) bad.push(`order sent at ${d[off + OM_SENT]}, not at a receive time`);
      },
    },
  });
  assert.ok(events > 50_000 && orders > 100 && reports > 100, `${events} ${orders} ${reports}`);
  assert.equal(bad.slice(0, 5), []);
});

test('with jitter, every latency stays within base ± jitter and links stay in order', () => {
  const c = config(() => {});
  let lastOm = -Infinity;
  const bad: string[] = [];
  runSession(spec(c, { seed: 3 }), {
    taps: {
      order(d, off) {
        const lat = d[off + OM_TS] - d[off + OM_SENT];
        // FIFO on the link may hold a message behind an earlier, slower one: never faster.
        if (lat < 90_000) bad.push(`entry latency ${lat}`);
        if (d[off + OM_TS] < lastOm) bad.push('orders overtook each other');
        lastOm = d[off + OM_TS];
      },
      marketData(d, off) {
        if (d[off + EV_RECV] - d[off + EV_TS] < 40_000) bad.push('md faster than base - jitter');
      },
    },
  });
  assert.equal(bad.slice(0, 5), []);
});

test('risk invariants over many seeds: no order above max size, no fill past the position limit', () => {
  const c = config((c) => {
    c.trading.max_order_size = 2;
    c.strategy.order_size = 2;
    c.strategy.skew_factor = 0; // no inventory skew: the strategy alone would run the position up
    c.simulation.session_end = '09:45';
  });
  let trips = 0;
  for (let seed = 1; seed <= 10; seed++) {
    let pos = 0;
    let worst = 0;
    let maxQty = 0;
    const r = runSession(spec(c, { seed, positionLimit: 3, inventoryLimit: 50 }), {
      taps: {
        order(d, off) {
          if (d[off + OM_TYPE] === OM_NEW && d[off + OM_QTY] > maxQty) maxQty = d[off + OM_QTY];
        },
        report(d, off) {
          if (d[off + ER_TYPE] !== ER_FILL) return;
          pos += d[off + ER_SIDE] === BID ? d[off + ER_QTY] : -d[off + ER_QTY];
          worst = Math.max(worst, Math.abs(pos));
        },
      },
    });
    assert.ok(maxQty <= 2, `seed ${seed}: order of ${maxQty}`);
    assert.ok(worst <= 3, `seed ${seed}: position reached ${worst}`);
    assert.is(r.maxAbsPosition, worst);
    assert.is(r.finalPosition, pos);
    if (r.riskRejects > 0) trips++;
  }
  assert.ok(trips > 0, 'the pre-trade check was exercised');
});

test('the kill switch stops all quoting: no new order after it trips, open orders cancelled', () => {
  const c = config((c) => {
    c.risk.max_daily_loss = 50; // USD: trips within minutes
  });
  for (let seed = 1; seed <= 5; seed++) {
    let lastNewSent = -Infinity;
    const cancelTimes: number[] = [];
    // $20 from the running peak (of $1M) trips it: any session's noise does.
    const r = runSession(spec(c, { seed, maxDrawdown: 0.00002 }), {
      taps: {
        order(d, off) {
          if (d[off + OM_TYPE] === OM_NEW) lastNewSent = Math.max(lastNewSent, d[off + OM_SENT]);
          else cancelTimes.push(d[off + OM_SENT]);
        },
      },
    });
    assert.ok(cancelTimes.includes(r.killSwitch.ts), `seed ${seed}: resting quotes cancelled at the trip`);
    assert.ok(r.killSwitch.tripped, `seed ${seed}: kill switch did not trip`);
    assert.ok(['MAX_DAILY_LOSS', 'MAX_DRAWDOWN'].includes(r.killSwitch.reason), r.killSwitch.reason);
    assert.ok(lastNewSent <= r.killSwitch.ts, `seed ${seed}: a new order after the kill`);
    assert.ok(r.alerts.some((a) => a.code === 'KILL_SWITCH' && a.severity === 'critical'));
  }
});

test('the same spec gives a byte-identical session result', () => {
  const c = config(() => {});
  const s = spec(c, { seed: 11 });
  assert.is(JSON.stringify(runSession(s)), JSON.stringify(runSession(s)));
});

test('inventory_limit holds for orders of several contracts: the position never passes it', () => {
  const c = config((c) => {
    c.strategy.order_size = 3;
    c.strategy.skew_factor = 0; // nothing but the limit holds the position back
  });
  for (let seed = 1; seed <= 3; seed++) {
    const r = runSession(spec(c, { seed, inventoryLimit: 5, positionLimit: 50 }));
    assert.ok(r.maxAbsPosition <= 5, `seed ${seed}: position reached ${r.maxAbsPosition} with inventory_limit 5`);
    assert.ok(r.maxAbsPosition >= 4, `seed ${seed}: the limit was approached (${r.maxAbsPosition})`);
  }
});

test('our own orders never cross at the exchange: cancels go out before new orders, so self-match prevention never has to act', () => {
  const c = config((c) => {
    c.simulation.session_end = '10:30';
  });
  // The exchange's view, replayed from its reports (they reach the engine in exchange-time
  // order); checked once all the reports of one exchange instant are in.
  const live = new Map<number, { side: number; price: number }>();
  let crossings = 0,
    smpReports = 0,
    instant = -1;
  const crossed = () => {
    let maxBuy = -Infinity,
      minSell = Infinity;
    for (const o of live.values()) {
      if (o.side === BID) maxBuy = Math.max(maxBuy, o.price);
      else minSell = Math.min(minSell, o.price);
    }
    return maxBuy >= minSell;
  };
  let engine: Trader | null = null;
  const r = runSession(spec(c, { symbol: 'NQ' }), {
    taps: {
      marketDataDone(_d, _off, e) {
        engine = e;
      },
      report(d, off) {
        if (d[off + ER_EXCH_TS] !== instant && crossed()) crossings++;
        instant = d[off + ER_EXCH_TS];
        const type = d[off + ER_TYPE],
          id = d[off + ER_ID];
        if (type === ER_ACK) live.set(id, { side: d[off + ER_SIDE], price: d[off + ER_PRICE] });
        else if (type === ER_CANCELED || (type === ER_FILL && d[off + ER_LEAVES] <= 0)) live.delete(id);
        if (type === ER_CANCELED && d[off + ER_REASON] === CANCEL_SELF_MATCH) smpReports++;
      },
    },
  });
  assert.is(crossings, 0, 'a new order rested across one of ours');
  assert.ok(r.fills > 1000, `a busy session (${r.fills} fills)`);
  assert.is(r.selfMatchPrevented, smpReports, 'one report per prevented self-match');
  assert.is(engine!.selfMatchCancels, smpReports, 'the engine booked each one');
  assert.is(r.selfMatchPrevented, 0, 'the engine never sends an order that would trade with its own');
});

test('risk rejects count distinct refused orders; every refusal of a requote is a blocked requote', () => {
  const c = config(() => {});
  const r = runSession(spec(c, { positionLimit: 1, inventoryLimit: 20 }));
  assert.ok(r.riskRejects > 0, 'the pre-trade check refused orders');
  assert.ok(r.blockedRequotes >= r.riskRejects);
  assert.ok(r.riskRejects * 5 < r.blockedRequotes, `the same quote refused again is not a new order (${r.riskRejects} vs ${r.blockedRequotes})`);
});

test.run();
