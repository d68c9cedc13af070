import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID } from '../../../src/core/events.ts';
import { RISK_KILLED, RISK_OK, RISK_ORDER_TOO_LARGE, RISK_POSITION_LIMIT, RiskManager } from '../../../src/risk/risk-manager.ts';

const limits = () => ({ maxOrderSize: 10, positionLimit: 50, maxDrawdownFrac: 0.06, maxDailyLoss: 100_000, killSwitchEnabled: true });

test('order size and position-with-open-orders checks', () => {
  const r = new RiskManager(limits());
  assert.is(r.checkOrder(BID, 100, 11, 0, 0, 0), RISK_ORDER_TOO_LARGE);
  assert.is(r.checkOrder(BID, 100, 10, 30, 10, 0), RISK_OK); // 30 + 10 + 10 = 50
  assert.is(r.checkOrder(BID, 100, 1, 30, 20, 0), RISK_POSITION_LIMIT); // 51
  assert.is(r.checkOrder(ASK, 101, 10, -40, 0, 0), RISK_OK);
  assert.is(r.checkOrder(ASK, 101, 1, -40, 0, 10), RISK_POSITION_LIMIT);
  assert.is(r.rejected, 3);
});

test('drawdown trips the kill switch once, with a critical alert', () => {
  const r = new RiskManager(limits());
  r.startDay(1_000_000);
  assert.is(r.onEquity(1, 1_010_000), false);
  assert.is(r.onEquity(2, 975_000), false); // 3.47 % from the 1.01M peak: past half the limit, warning only
  assert.ok(r.alerts.items.some((a) => a.code === 'DRAWDOWN_WARNING'));
  assert.is(r.onEquity(3, 949_000), true); // 6.04 %
  assert.ok(r.killed);
  assert.is(r.killReason, 'MAX_DRAWDOWN');
  assert.is(r.onEquity(4, 900_000), false);
  assert.is(r.checkOrder(BID, 100, 1, 0, 0, 0), RISK_KILLED);
  assert.is(r.alerts.items.filter((a) => a.code === 'KILL_SWITCH').length, 1);
});

test('daily loss trips the kill switch; disabled kill switch only alerts', () => {
  const r = new RiskManager({ ...limits(), maxDailyLoss: 5_000, maxDrawdownFrac: 1 });
  r.startDay(1_000_000);
  assert.is(r.onEquity(1, 994_000), true);
  assert.is(r.killReason, 'MAX_DAILY_LOSS');
  const off = new RiskManager({ ...limits(), maxDailyLoss: 5_000, killSwitchEnabled: false });
  off.startDay(1_000_000);
  assert.is(off.onEquity(1, 994_000), false);
  assert.is(off.killed, false);
  off.onEquity(2, 993_000);
  assert.is(off.alerts.items.filter((a) => a.code === 'MAX_DAILY_LOSS').length, 1);
});

test('one quote refused on every requote is one rejected order; each refusal is a blocked requote', () => {
  const r = new RiskManager({ ...limits(), positionLimit: 2 });
  for (let i = 0; i < 5; i++) assert.is(r.checkOrder(BID, 100, 1, 2, 0, 0), RISK_POSITION_LIMIT);
  assert.is(r.rejected, 1);
  assert.is(r.blockedRequotes, 5);
  r.checkOrder(BID, 99, 1, 2, 0, 0); // the desired quote changed: a new order, refused
  r.checkOrder(BID, 99, 1, 2, 0, 0);
  assert.is(r.rejected, 2);
  r.checkOrder(ASK, 101, 1, -2, 0, 0); // the other side is its own order
  assert.is(r.rejected, 3);
  assert.is(r.checkOrder(BID, 99, 1, 1, 0, 0), RISK_OK); // accepted: the next refusal is a new order
  r.checkOrder(BID, 99, 1, 2, 0, 0);
  assert.is(r.rejected, 4);
  assert.is(r.blockedRequotes, 9);
});

test('the kill switch trips once: a second cause (e.g. a later engine restart) raises no second KILL_SWITCH alert', () => {
  const r = new RiskManager(limits());
  assert.is(r.trip(5e12, 'ENGINE_RESTARTS', '3 engine thread restarts', 3, 3), true);
  assert.is(r.trip(6e12, 'ENGINE_RESTARTS', '4 engine thread restarts', 4, 3), false);
  const kills = r.alerts.items.filter((a) => a.code === 'KILL_SWITCH');
  assert.is(kills.length, 1);
  assert.is(kills[0].ts, 5e12);
  assert.is(r.killTs, 5e12);
  assert.is(r.killReason, 'ENGINE_RESTARTS');
});

test.run();
