// --orders and --quotes as users run them: the order log and the quote/state series of the
// simulated run itself, reconciled with the run's own result and fills (counts, ids, prices,
// times), in CSV and in Parquet (read back by parquet-wasm) with the same values.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';
import { beforeAll } from '../../helpers/hooks.ts';

const CONFIG = writeConfig(`
[simulation]
session_start = "09:30"
session_end = "09:45"
`);
const dir = tempDir();
const out = (f: string) => join(dir, f);
const rows = (f: string) => {
  const [head, ...lines] = readFileSync(out(f), 'utf8').trimEnd().split('\n');
  const names = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
};
let result: Record<string, any>;
let readParquet: typeof import('parquet-wasm/node').readParquet;
let tableFromIPC: typeof import('apache-arrow').tableFromIPC;

beforeAll(test, async () => {
  ({ readParquet } = await import('parquet-wasm/node'));
  ({ tableFromIPC } = await import('apache-arrow'));
  const args = ['--backtest', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03', '--json', '--fills', out('fills.csv')];
  const r = runCli([...args, '--orders', out('orders.csv'), '--quotes', out('quotes.csv')]);
  assert.is(r.code, 0, r.stderr);
  result = JSON.parse(r.stdout);
  const p = runCli([...args, '--orders', out('orders.parquet'), '--quotes', out('quotes.parquet')]);
  assert.is(p.code, 0, p.stderr);
  assert.equal(JSON.parse(p.stdout), result, 'the same run');
  // Recording changes nothing in the result.
  const plain = runCli(['--backtest', '--config', CONFIG, '--start', '2024-01-02', '--end', '2024-01-03', '--json']);
  assert.equal(JSON.parse(plain.stdout), result, 'recording leaves the result as it was');
});

test('the order log counts what the result counts: sends, cancels, fills, rejects', () => {
  const o = rows('orders.csv');
  const n = (e: string) => o.filter((r) => r.event === e).length;
  assert.ok(o.length > 1000, `rows ${o.length}`);
  assert.is(n('send'), result.orders_sent);
  assert.is(n('cancel'), result.cancels_sent);
  assert.is(n('fill'), result.total_fills);
  assert.is(n('reject'), result.rejects);
  assert.is(n('ack') + n('reject'), n('send'), 'every order sent is acked or rejected');
  assert.is(n('canceled') + n('cancel_reject') <= n('cancel') + n('send'), true);
});

test('every fill row is a fill of the fills file: id, side, price, quantity, exchange time, fee', () => {
  const fills = rows('fills.csv');
  const logged = rows('orders.csv').filter((r) => r.event === 'fill');
  assert.is(logged.length, fills.length);
  logged.forEach((l, i) => {
    const f = fills[i];
    assert.equal(
      [l.order_id, l.side, l.price, l.quantity, l.exchange_ns, l.fee, l.liquidity],
      [f.order_id, f.side, f.price, f.quantity, f.time_ns, f.fee, f.liquidity],
      `fill ${i}`,
    );
  });
});

test('times and latencies agree: latency = exchange - sent (messages), received - exchange (reports)', () => {
  for (const r of rows('orders.csv')) {
    const sent = BigInt(r.sent_ns);
    const ex = BigInt(r.exchange_ns);
    if (r.received_ns === '') {
      assert.is(BigInt(r.latency_ns), ex - sent);
      assert.is(r.time_ns, r.exchange_ns);
      assert.ok(ex > sent, 'a message reaches the exchange after it was sent');
    } else {
      const recv = BigInt(r.received_ns);
      assert.is(BigInt(r.latency_ns), recv - ex);
      assert.is(BigInt(r.since_sent_ns), recv - sent);
      assert.is(r.time_ns, r.received_ns);
    }
    assert.is(r.time, new Date(Number(BigInt(r.time_ns) / 1_000_000n)).toISOString());
  }
});

test('the quote series: one sample a second per session, bid below ask, the mid between, a position within the limit', () => {
  const q = rows('quotes.csv');
  for (const d of ['2024-01-02', '2024-01-03']) assert.ok(q.filter((r) => r.session_date === d).length >= 14 * 60, d);
  let both = 0;
  for (const r of q) {
    if (r.bid !== '' && r.ask !== '') {
      both++;
      assert.ok(Number(r.bid) < Number(r.ask), JSON.stringify(r));
    }
    assert.ok(Number.isInteger(Number(r.position)));
  }
  assert.ok(both > q.length / 2, 'mostly quoting both sides');
  assert.ok(
    q.some((r) => r.position !== '0'),
    'the position moves',
  );
});

test('Parquet: the same values as the CSV, typed times, the run in the metadata', () => {
  for (const name of ['orders', 'quotes']) {
    const csv = rows(`${name}.csv`);
    const t = tableFromIPC(readParquet(readFileSync(out(`${name}.parquet`))).intoIPCStream());
    assert.is(t.numRows, csv.length, name);
    assert.is(String(t.schema.fields.find((f) => f.name === 'time_ns')!.type), 'Timestamp<NANOSECOND, UTC>');
    assert.is(String(t.schema.fields.find((f) => f.name === 'session_date')!.type), 'Date32<DAY>');
    assert.is(t.schema.metadata.get('engine.seed'), String(result.seed));
    const ns = t.getChild('time_ns')!.data.flatMap((d) => [...(d.values as BigInt64Array)]);
    const price = t.getChild(name === 'orders' ? 'price' : 'mid')!;
    csv.forEach((r, i) => {
      assert.is(String(ns[i]), r.time_ns);
      const p = price.get(i);
      assert.is(p === null ? '' : String(p), name === 'orders' ? r.price : r.mid);
    });
  }
});

test('--orders/--quotes are table outputs: a bad extension or a second stdout is a usage error', () => {
  let r = runCli(['--backtest', '--orders', 'o.txt']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--orders "o.txt": expected a file name ending in .csv or .parquet/);
  r = runCli(['--backtest', '--quotes', '-', '--fills', '-']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--fills - and --quotes - all write to stdout/);
});

test.run();
