// The backtest CLI's --json result carries each session's open_mid and close_mid: the market's
// first and last two-sided mid of the session, computed here independently by running the
// session's generator alone; close_mid stays the session end's after a kill-switch stop, and a
// session the kill switch kept from trading reports both too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EV_STRIDE } from '../../../src/core/events.ts';
import { RecordRing } from '../../../src/core/ring.ts';
import { MarketGenerator } from '../../../src/market/generator.ts';
import { contractForRoot } from '../../../src/market/instruments.ts';
import { runCli, writeConfig } from '../../helpers/cli.ts';

const ES = contractForRoot('ES');
const START = 9.5 * 3600e9;
const END = START + 10 * 60e9;

/** The market of one session without the engine: its opening touch's mid and its last mid, as prices. */
function marketMids(date: string, seed: number): { open: number; close: number } {
  const gen = new MarketGenerator(ES, date, seed, { sessionStartNs: START, sessionEndNs: END });
  const ring = RecordRing.allocate(EV_STRIDE, 1 << 14, false);
  const open = (gen.startPriceTicks + 0.5) * ES.tickSize;
  while (!gen.done) {
    ring.advance(gen.generate(ring, 4096));
    ring.release();
  }
  return { open, close: gen.book.mid() * ES.tickSize };
}

function backtest(extra: string): {
  session_results: { date: string; traded: boolean; kill_switch: boolean; final_mid: number | null; open_mid: number | null; close_mid: number | null }[];
} {
  const config = writeConfig(`[simulation]\nsession_start = "09:30"\nsession_end = "09:40"\n${extra}`);
  const r = runCli(['--backtest', '--config', config, '--json', '--seed', '5', '--start', '2024-01-02', '--end', '2024-01-03']);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('--json: every session has open_mid and close_mid, the market of that session', () => {
  const res = backtest('');
  assert.is(res.session_results.length, 2);
  for (const s of res.session_results) {
    const want = marketMids(s.date, 5);
    assert.is(s.open_mid, want.open, `${s.date} open_mid`);
    assert.is(s.close_mid, want.close, `${s.date} close_mid`);
    assert.is(s.close_mid, s.final_mid);
  }
});

test('--json: after a kill-switch stop, close_mid is the mid at the session end; a session not traded has both', () => {
  const res = backtest('[risk]\nmax_daily_loss = 1\n');
  const [first, second] = res.session_results;
  assert.ok(first.kill_switch && first.traded, 'the kill switch trips in the first session');
  assert.is(second.traded, false, 'the second session does not trade');
  for (const s of [first, second]) {
    const want = marketMids(s.date, 5);
    assert.is(s.open_mid, want.open, `${s.date} open_mid`);
    assert.is(s.close_mid, want.close, `${s.date} close_mid`);
  }
  assert.is(second.final_mid, null, 'no mark: the session held no position');
});

test.run();
