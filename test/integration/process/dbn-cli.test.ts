// The CLI faces of the DBN module: --inspect prints the metadata and one JSON line per record
// with Databento's field names and 64-bit integers as decimal strings; --export-dbn writes a
// file --inspect reads back; bad input exits 1 naming the file and where.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, tempDir, writeConfig } from '../../helpers/cli.ts';

const DIR = new URL('../../fixtures/dbn/', import.meta.url).pathname;
const EXPECTED: Record<string, { metadata: unknown; records: unknown[] }> = JSON.parse(readFileSync(`${DIR}expected.json`, 'utf8'));

function lines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

test('--inspect MBP-10: metadata line, then every record as Databento names its fields', () => {
  const r = runCli(['--inspect', `${DIR}test_data.mbp-10.v3.dbn.zst`]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '');
  const [meta, ...records] = lines(r.stdout);
  assert.equal(meta, EXPECTED['test_data.mbp-10.v3.dbn.zst'].metadata);
  assert.equal(records, EXPECTED['test_data.mbp-10.v3.dbn.zst'].records);
  // 64-bit integers are strings in the text itself (not numbers that JSON.parse would round).
  assert.match(r.stdout, /"ts_event":"1609160400000429831"/);
  assert.match(r.stdout, /"levels":\[\{"bid_px":"3720250000000","ask_px":"3720500000000","bid_sz":24,"ask_sz":10,"bid_ct":15,"ask_ct":8\}/);
  assert.match(r.stdout, /"hd":\{"length":92,"rtype":10,"publisher_id":1,"instrument_id":5482,/);
});

test('--inspect MBO with --limit 1: one record; action and side as characters', () => {
  const r = runCli(['--inspect', `${DIR}test_data.mbo.v1.dbn.zst`, '--limit', '1']);
  assert.is(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.is(out.length, 2);
  assert.equal(out[1], EXPECTED['test_data.mbo.v1.dbn.zst'].records[0]);
  assert.match(r.stdout, /"order_id":"647784973705","price":"3722750000000",.*"action":"C","side":"A"/);
  assert.is(lines(runCli(['--inspect', `${DIR}test_data.mbo.v1.dbn.zst`, '--limit', '0']).stdout).length, 1);
});

test('--inspect a trades file: no levels key on trade records; a limit that was set is printed', () => {
  const r = runCli(['--inspect', `${DIR}test_data.trades.v3.dbn.zst`]);
  assert.is(r.code, 0, r.stderr);
  const [meta, ...records] = lines(r.stdout);
  assert.is(meta.limit, '2');
  assert.ok(records.length > 0);
  records.forEach((rec, i) => {
    assert.not.ok('levels' in rec, 'a trade record has no levels key');
    const { levels: _, ...want } = EXPECTED['test_data.trades.v3.dbn.zst'].records[i] as Record<string, unknown>;
    assert.equal(rec, want);
  });
  // An MBP-1 record keeps its one level.
  const mbp1 = lines(runCli(['--inspect', `${DIR}test_data.mbp-1.v3.dbn.zst`, '--limit', '1']).stdout);
  assert.is((mbp1[1].levels as unknown[]).length, 1);
});

test('--inspect a bad file: exit 1, the error names the file and the offset', () => {
  const path = join(tempDir('dbn-cli-'), 'cut.dbn');
  writeFileSync(path, readFileSync(`${DIR}test_data.mbo.v3.dbn`).subarray(0, 0x1a0 + 10));
  const r = runCli(['--inspect', path]);
  assert.is(r.code, 1);
  assert.is(r.stderr, `error: ${path} (record 1, byte offset 416): file ends inside a record: 10 of 56 bytes\n`);
  // The records before the damage were printed, and the exit code says the file is not whole.
  assert.is(lines(r.stdout).length, 2);
  const missing = runCli(['--inspect', join(tempDir('dbn-cli-'), 'none.dbn')]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /none\.dbn: cannot open/);
});

test('--inspect flag errors: usage, exit 2', () => {
  const r = runCli(['--inspect', 'x.dbn', '--limit', 'ten']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--limit "ten": expected a non-negative integer/);
  assert.match(runCli(['--limit', '3']).stderr, /--limit only applies with --inspect or --strategy-check/);
  assert.match(runCli(['--export-dbn', 'o.dbn.zst', '--schema', 'ohlcv']).stderr, /--schema "ohlcv": expected mbo or mbp-10/);
  assert.match(runCli(['--backtest', '--export-dbn', 'o.dbn.zst']).stderr, /--backtest and --export-dbn cannot be combined/);
});

test('--export-dbn to a place that cannot be written: exit 1 naming the file', () => {
  const out = join(tempDir('dbn-cli-'), 'no', 'such', 'dir', 'x.dbn.zst');
  const r = runCli(['--export-dbn', out, '--start', '2024-01-02', '--end', '2024-01-02']);
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`error: --export-dbn: ${out}: cannot write: ENOENT`));
});

test('--export-dbn writes MBO (default) and MBP-10 files that --inspect reads back', () => {
  const config = writeConfig('[simulation]\nsession_start = "09:30"\nsession_end = "09:31"\n');
  const dir = tempDir('dbn-cli-');
  for (const schema of ['mbo', 'mbp-10']) {
    const out = join(dir, `es.${schema}.dbn.zst`);
    const args = ['--export-dbn', out, '--config', config, '--symbol', 'ES', '--start', '2024-01-02', '--end', '2024-01-02', '--seed', '3'];
    const r = runCli(schema === 'mbo' ? args : [...args, '--schema', schema]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^wrote ${out}: ${schema}, 1 session \\(2024-01-02\\), [\\d,]+ L2 events as [\\d,]+ records\\n$`));
    const shown = runCli(['--inspect', out, '--limit', '2']);
    assert.is(shown.code, 0, shown.stderr);
    const [meta, clear, first] = lines(shown.stdout) as { schema?: string; dataset?: string; symbols?: string[]; action?: string; hd?: { ts_event: string } }[];
    assert.is(meta.schema, schema);
    assert.is(meta.dataset, 'SYNTH.GLBX');
    // No limit was set when the file was written: null, as Databento's tools print it (not 0).
    assert.is((meta as { limit?: unknown }).limit, null);
    assert.equal(meta.symbols, ['ESH24']);
    assert.is(clear.action, 'R');
    assert.is(first.action, 'A');
    // 09:30 New York on 2024-01-02 is 14:30 UTC.
    assert.ok(BigInt(first.hd!.ts_event) >= BigInt(Date.parse('2024-01-02T14:30:00Z')) * 1_000_000n);
  }
});

test.run();
