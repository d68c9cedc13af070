import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ASK, BID } from '../src/core/events.ts';
import { RISK_KILLED, RISK_OK, RISK_ORDER_TOO_LARGE, RISK_POSITION_LIMIT, RiskManager } from '../src/risk/risk-manager.ts';

const limits = () => ({ maxOrderSize: 10, positionLimit: 50, maxDrawdownFrac: 0.06, maxDailyLoss: 100_000, killSwitchEnabled: true });

test('order size and position-with-open-orders checks', () => {
  const r = new RiskManager(limits());
  assert.is(r.checkOrder(BID, 11, 0, 0, 0), RISK_ORDER_TOO_LARGE);
  assert.is(r.checkOrder(BID, 10, 30, 10, 0), RISK_OK); // 30 + 10 + 10 = 50
  assert.is(r.checkOrder(BID, 1, 30, 20, 0), RISK_POSITION_LIMIT); // 51
  assert.is(r.checkOrder(ASK, 10, -40, 0, 0), RISK_OK);
  assert.is(r.checkOrder(ASK, 1, -40, 0, 10), RISK_POSITION_LIMIT);
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
  assert.is(r.checkOrder(BID, 1, 0, 0, 0), RISK_KILLED);
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

test.run();
