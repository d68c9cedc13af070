// Smoke run of the whole benchmark suite (bench/run.ts --quick --json, bundled as npm run bench
// runs it): every section runs and reports a well-formed, sane result. Structure and sanity only
// (checksums agree, counts positive, numbers finite): never timing, the machine is shared.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registeredStrategies } from '../../../src/strategy/registry.ts';
import { beforeAll } from '../../helpers/hooks.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;

interface Quick {
  mode: string;
  machine: { cpuModel: string; cores: number; node: string; loadavgAtStart: number[]; date: string };
  sections: Record<string, any>;
  sectionInfo: Record<string, { seconds: number; error?: string }>;
  table: { benchmark: string; ours: string; met: string }[];
}

let r: Quick;

const positive = (x: unknown, what: string) => assert.ok(typeof x === 'number' && Number.isFinite(x) && x > 0, `${what} = ${x}`);

// A failed section's error, from the JSON on stdout: stderr ends with the results table, so its
// tail alone cut the error off once.
function sectionErrors(stdout: string): string {
  try {
    const q = JSON.parse(stdout) as Quick;
    return Object.entries(q.sectionInfo)
      .filter(([, i]) => i.error)
      .map(([name, i]) => `section ${name}: ${i.error}`)
      .join('\n');
  } catch {
    return '';
  }
}

beforeAll(test, () => {
  const build = spawnSync(process.execPath, [join(ROOT, 'bench', 'build.mjs')], { encoding: 'utf8' });
  assert.is(build.status, 0, build.stderr);
  const t0 = Date.now();
  const run = spawnSync(process.execPath, ['--expose-gc', join(ROOT, 'dist', 'bench', 'run.js'), '--quick', '--json'], {
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 64 << 20,
  });
  assert.is(run.status, 0, `bench exited ${run.status} after ${Date.now() - t0} ms:\n${sectionErrors(run.stdout) || run.stderr.slice(-4000)}`);
  r = JSON.parse(run.stdout) as Quick;
});

test('reports the machine and every section without error', () => {
  assert.is(r.mode, 'quick');
  assert.ok(r.machine.cpuModel.length > 0);
  positive(r.machine.cores, 'cores');
  assert.match(r.machine.node, /^v\d+/);
  assert.is(r.machine.loadavgAtStart.length, 3);
  for (const name of ['book', 'components', 'tick-to-trade', 'allocation', 'throughput', 'strategies', 'cross-thread', 'http', 'memory']) {
    assert.ok(r.sectionInfo[name], `section ${name} ran`);
    assert.is(r.sectionInfo[name].error, undefined, `section ${name}: ${r.sectionInfo[name].error}`);
    assert.ok(r.sections[name], `section ${name} has results`);
  }
  assert.ok(r.table.length >= 10, 'table rows');
});

test('order books: ours, ccxt and tardis end in the same state', () => {
  const b = r.sections.book;
  positive(b.updates, 'updates');
  assert.is(b.implementations.length, 3);
  assert.ok(b.checksumsEqual, 'checksums equal');
  const sums = new Set(b.implementations.map((i: { checksum: string }) => i.checksum));
  assert.is(sums.size, 1, [...sums].join(' '));
  for (const i of b.implementations) {
    positive(i.nsPerUpdate, `${i.name} ns/update`);
    assert.is(i.checkpoints.length, 8);
    assert.equal(i.checkpoints, b.implementations[0].checkpoints);
  }
  assert.ok(b.finalState.bestBid < b.finalState.bestAsk, 'a two-sided, uncrossed book');
});

test('components, tick-to-trade and throughput figures are positive and finite', () => {
  const c = r.sections.components;
  positive(c.features.bookPlusFeaturesNs, 'book+features');
  positive(c.inference.nsPerCall, 'inference');
  positive(c.inference.multiplyAdds, 'multiply-adds');
  positive(c.strategy.nsPerCall, 'decide');
  const t = r.sections['tick-to-trade'];
  positive(t.events, 't2t events');
  positive(t.withOrder.count, 'samples with an order');
  positive(t.withOrder.p50, 't2t p50');
  assert.ok(t.withOrder.p50 <= t.withOrder.p99 && t.withOrder.p99 <= t.withOrder.p999, 'percentiles ordered');
  positive(t.predictions, 'predictions');
  const tp = r.sections.throughput;
  positive(tp.recording.events, 'recorded events');
  positive(tp.generation.eventsPerSec, 'generation');
  positive(tp.generationNeutral.eventsPerSec, 'generation, the market before issue 49');
  assert.is(tp.generationNeutral.rounds.length, tp.generation.rounds.length, 'its rounds alternate with the default ones');
  positive(tp.speedOfLight.bareLoopEventsPerSec, 'speed of light');
  positive(tp.pipeline.eventsPerSec, 'pipeline');
  assert.is(tp.pipeline.events, tp.recording.events, 'the replay delivered every recorded event');
  positive(tp.pipeline.ordersSent, 'orders sent');
  assert.is(tp.pipeline.killSwitchTripped, false, 'the measured session trades throughout');
  assert.is(tp.pipelineWithModel.killSwitchTripped, false, 'the measured session with the model trades throughout');
  positive(tp.pipelineWithModel.predictions, 'predictions with the model');
  // issue 15's ratio: ccxt's book timed after every round without the model, one ratio per round
  const peer = tp.ccxtBetweenRounds;
  assert.is(peer.rounds.length, tp.pipeline.rounds.length, 'a ccxt replay after each pipeline round');
  assert.is(peer.ratios.length, tp.pipeline.rounds.length);
  peer.rounds.forEach((ns: number, i: number) => {
    positive(ns, `ccxt ns per update, round ${i}`);
    assert.ok(Math.abs(peer.ratios[i] - 1e9 / tp.pipeline.rounds[i] / ns) < 1e-9 * peer.ratios[i], `ratio of round ${i}`);
  });
  assert.ok(
    r.table.some((row) => row.benchmark === 'Backtest pipeline per event / ccxt book per update' && row.ours.endsWith(`${peer.ratio.toFixed(2)}x`)),
    'the table reports the median ratio',
  );
  // both codes of each ratio on one vCPU: the pipeline thread times its peer itself, pinned where it started
  assert.is(peer.cpus.length, tp.pipeline.rounds.length, 'the vCPU of each round and of its peer');
  for (const [round, of] of peer.cpus) assert.ok(Number.isInteger(round) && Number.isInteger(of) && round >= 0 && of >= 0, `vCPUs ${round}, ${of}`);
  if (peer.pinned !== null)
    assert.ok(
      peer.cpus.every(([round, of]: number[]) => round === peer.pinned && of === peer.pinned),
      `pinned to ${peer.pinned}: ${JSON.stringify(peer.cpus)}`,
    );
  assert.ok(tp.scaling.points.length >= 1);
  for (const p of tp.scaling.points) positive(p.eventsPerSec, `pool of ${p.workers}`);
  // one day, the generator in its own thread and on the session's (the section fails if they differ)
  assert.is(tp.oneDay.threadedS.length, 3);
  assert.is(tp.oneDay.sameThreadS.length, 3);
  positive(tp.oneDay.threadedEventsPerSec, 'one day, generator thread');
  positive(tp.oneDay.sameThreadEventsPerSec, 'one day, same thread');
  assert.ok(tp.oneDay.events > 0 && r.table.some((row) => row.benchmark === 'Backtest, one day, generation included (ev/s)'), 'the one-day row');
  assert.ok(tp.profile.top.length > 0, 'a CPU profile');
});

test('strategies: a row for each built-in and each example strategy, with ns per event and the quiet share', () => {
  const rows = r.sections.strategies.rows as {
    name: string;
    file: string | null;
    events: number;
    nsPerEvent: number;
    rounds: number[];
    wallNsPerEvent: number;
    quietShare: number;
    fills: number;
  }[];
  const examples = readdirSync(join(ROOT, 'examples', 'strategies')).filter((f) => f.endsWith('.ts'));
  const builtins = registeredStrategies()
    .filter((x) => x.file === null)
    .map((x) => x.def.name);
  assert.equal(builtins.slice(0, 1), ['market_maker']);
  assert.is(rows.length, builtins.length + examples.length, 'every built-in and every example');
  assert.equal(
    rows.slice(0, builtins.length).map((x) => [x.name, x.file]),
    builtins.map((n) => [n, null]),
  );
  assert.equal(
    rows
      .slice(builtins.length)
      .map((x) => x.file!.split('/').pop())
      .sort(),
    examples.sort(),
  );
  for (const x of rows) {
    assert.is(x.events, r.sections.throughput.recording.events, `${x.name}: the bench's recorded session`);
    positive(x.nsPerEvent, `${x.name} ns/event`);
    positive(x.wallNsPerEvent, `${x.name} wall ns/event`);
    assert.is(x.rounds.length, 1);
    assert.ok(x.quietShare >= 0 && x.quietShare < 1, `${x.name} quiet share ${x.quietShare}`);
    positive(x.fills, `${x.name} fills`);
    assert.ok(
      r.table.some(
        (row) => row.benchmark === `Strategy ${x.name}, 1 thread (CPU ns/event, quiet share)` && row.ours.endsWith(`${(100 * x.quietShare).toFixed(1)}% quiet`),
      ),
      `${x.name}'s table row`,
    );
  }
  // the built-in keeps a standing promise: most events are quiet; the examples make none
  assert.ok(rows[0].quietShare > 0.5, `market_maker quiet share ${rows[0].quietShare}`);
  for (const x of rows.slice(1)) assert.is(x.quietShare, 0, `${x.name} makes no promise`);
});

test('allocation, cross-thread, HTTP and memory sections are well-formed', () => {
  const a = r.sections.allocation;
  for (const k of ['withoutModel', 'withModel']) {
    positive(a[k].events, `${k} events`);
    assert.ok(Number.isInteger(a[k].gcCount) && a[k].gcCount >= 0, `${k} gc count`);
    assert.ok(Number.isFinite(a[k].heapGrowthBytes), `${k} heap growth`);
  }
  const x = r.sections['cross-thread'];
  assert.equal(
    x.runs.map((run: { idle: string }) => run.idle),
    ['busy_poll', 'spin', 'block'],
  );
  for (const run of x.runs) {
    positive(run.events, `cross-thread events (${run.idle})`);
    assert.ok(run.samplesUs.count >= 0);
  }
  const f = x.spinFloor;
  assert.ok(f.seconds > 0.5 && f.lostPct >= 0 && f.lostPct < 100, `spin floor: ${f.seconds} s, ${f.lostPct} % away`);
  assert.ok(f.delayUs.p50 <= f.delayUs.p99 && f.delayUs.p99 <= f.delayUs.p999 && f.delayUs.p999 <= f.maxGapUs, 'spin floor quantiles in order');
  const h = r.sections.http;
  positive(h.engine.reqPerSec, 'engine req/s');
  positive(h.bare.reqPerSec, 'bare req/s');
  assert.is(h.engine.non2xx, 0);
  positive(h.bodyBytes, 'state body bytes');
  // The ratio is CPU per request of alternated rounds; the control is bare vs bare.
  for (const w of [h.pairs, h.control]) {
    assert.ok(w.costRatios.length >= 1 && w.costRatios.length === w.usPerRequest.length && w.throughputRatios.length === w.costRatios.length);
    for (const [a, b] of w.usPerRequest) assert.ok(a > 0 && b > 0, 'CPU per request of both servers');
    for (const [a, b] of w.reqPerSec) assert.ok(a > 0 && b > 0, 'both servers answered');
  }
  assert.ok(h.ratio >= Math.min(...h.pairs.costRatios) && h.ratio <= Math.max(...h.pairs.costRatios), 'the ratio is the median of the pairs');
  if (h.pinned !== null) assert.not.equal(h.pinned.server, h.pinned.client);
  assert.is(h.sse.connected, h.sse.clients, 'every SSE client connected');
  positive(h.sse.framesPerClientPerSec, 'SSE frames');
  const m = r.sections.memory;
  positive(m.rssMiB, 'RSS');
  assert.ok(m.series.length >= 2);
});

test.run();
