import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, defaultConfigPath, loadConfig, parseConfig } from '../../../src/config/load.ts';
import { defaultConfig, type EngineConfig } from '../../../src/config/schema.ts';
import { createLogger } from '../../../src/log.ts';
import { VERSION } from '../../../src/version.ts';
import { configError } from '../../helpers/config-error.ts';

const REFERENCE: EngineConfig = {
  name: 'futures-mm-engine',
  log_level: 'info',
  metrics_port: 9090,
  data_dir: 'data',
  trading: { live_enabled: false, symbols: ['ESH24'], initial_capital: 1_000_000, max_position: 50, max_order_size: 10 },
  latency: { order_latency_ns: 100_000, market_data_latency_ns: 50_000, jitter_ns: 10_000, response_latency_ns: 100_000 },
  risk: { max_position: 50, max_drawdown_pct: 0.06, max_daily_loss: 100_000, enable_kill_switch: true, flatten_on_kill: false },
  fees: { maker_fee: 0.25, taker_fee: 0.85, exchange_fee: 1.18 },
  contracts: {},
  market: {},
  simulation: {
    seed: 42,
    start_date: '2024-01-02',
    end_date: '2024-01-02',
    session_start: '09:30',
    session_end: '16:00',
    speed: 1,
    activity: 1,
    source: 'synthetic',
    replay_path: '',
    regular_hours_only: false,
    engine_idle: 'spin',
  },
  execution: { queue_model: 'power', queue_power: 2 },
  strategy: {
    name: 'market_maker',
    files: [],
    order_size: 1,
    spread_multiplier: 1,
    skew_factor: 0.5,
    inventory_limit: 20,
    ml_weight: 1,
    use_ml: false,
    flatten_minutes: 5,
    vol_spread_factor: 0.5,
  },
  model: { dir: 'models', enabled: true },
  backtest: { max_days: 31, pool_size: 0, max_queued_sessions: 62, session_seconds_estimate: 30, artifact_cache_bytes: 67108864 },
  storage: { max_runs: 10000, max_bytes: 536870912, max_age_days: 90, max_record_bytes: 1048576, idempotency_ttl_hours: 24 },
  sweep: { max_points: 1000, max_queued_sessions: 5000, max_kept: 100 },
  http: {
    cors_origins: ['http://localhost:3000', 'http://127.0.0.1:3000'],
    host: '127.0.0.1',
    allowed_hosts: [],
    require_auth_for_reads: false,
    rate_limit_requests: 300,
    rate_limit_window_s: 60,
    stream_hz: 10,
    max_sse_clients: 100,
  },
};

const EMINI = { maker_fee: 0.25, taker_fee: 0.85 };
const MICRO = { maker_fee: 0.1, taker_fee: 0.25 };
/**
 * config/config.toml: the defaults plus the model on (the held-out strategy comparison chose it)
 * and a fee schedule for every root (figures cited in the file).
 */
const SHIPPED: EngineConfig = {
  ...REFERENCE,
  strategy: { ...REFERENCE.strategy, use_ml: true },
  fees: {
    ...REFERENCE.fees,
    ES: { ...EMINI, exchange_fee: 1.38 },
    NQ: { ...EMINI, exchange_fee: 1.38 },
    YM: { ...EMINI, exchange_fee: 1.38 },
    RTY: { ...EMINI, exchange_fee: 1.38 },
    MES: { ...MICRO, exchange_fee: 0.35 },
    MNQ: { ...MICRO, exchange_fee: 0.35 },
    CL: { ...EMINI, exchange_fee: 1.5 },
    GC: { ...EMINI, exchange_fee: 1.6 },
  },
};

/** Asserts one issue for `key` whose message line names key, value and expectation. */
function expectIssue(text: string, key: string, value: string, expected: RegExp): ConfigError {
  const e = configError(text);
  const issue = e.issues.find((i) => i.key === key);
  assert.ok(issue, `no issue for ${key} in: ${e.message}`);
  assert.match(issue!.expected, expected);
  const line = e.message.split('\n').find((l) => l.startsWith(`config.toml: ${key} = `));
  assert.ok(line, `message does not name ${key}: ${e.message}`);
  assert.ok(line!.includes(`${key} = ${value}: expected `), `message line ${JSON.stringify(line)} lacks value ${value}`);
  assert.match(line!, expected);
  return e;
}

// ------------------------------------------------------------------------------------- shipped

test('shipped config.toml parses to the reference values', () => {
  const text = readFileSync(defaultConfigPath(), 'utf8');
  const cfg = parseConfig(text, 'config.toml');
  assert.equal(cfg, SHIPPED);
  assert.is(Object.getPrototypeOf(cfg), Object.prototype);
  assert.is(Object.getPrototypeOf(cfg.trading), Object.prototype);
  assert.ok(Array.isArray(cfg.trading.symbols));
});

test('shipped config.toml has a comment on every key', () => {
  const text = readFileSync(defaultConfigPath(), 'utf8');
  for (const line of text.split('\n')) {
    if (/^\s*[a-z_]+\s*=/.test(line)) {
      const key = line.split('=')[0].trim();
      assert.ok(line.includes('#'), `key ${key} has no comment`);
    }
  }
});

test('defaultConfigPath points at config/config.toml under the package root', () => {
  assert.match(defaultConfigPath(), /config[\\/]config\.toml$/);
  assert.equal(loadConfig({ env: {} }).config, SHIPPED);
});

test('defaults fill in: an empty file is the reference config', () => {
  assert.equal(parseConfig('', 'empty.toml'), REFERENCE);
  assert.equal(defaultConfig(), REFERENCE);
});

test('defaults fill in around the keys that are given', () => {
  const cfg = parseConfig('log_level = "debug"\n[risk]\nmax_drawdown_pct = 0.1\n[latency]\norder_latency_ns = 250000\n', 'x.toml');
  assert.is(cfg.log_level, 'debug');
  assert.is(cfg.risk.max_drawdown_pct, 0.1);
  assert.is(cfg.risk.max_position, 50);
  assert.is(cfg.risk.enable_kill_switch, true);
  assert.is(cfg.latency.order_latency_ns, 250_000);
  assert.is(cfg.latency.response_latency_ns, 250_000, 'response latency defaults to the order latency');
  assert.is(cfg.latency.market_data_latency_ns, 50_000);
  assert.equal(cfg.fees, REFERENCE.fees);
  const explicit = parseConfig('[latency]\norder_latency_ns = 250000\nresponse_latency_ns = 7\n', 'x.toml');
  assert.is(explicit.latency.response_latency_ns, 7);
});

test('valid non-default values are accepted', () => {
  const cfg = parseConfig(
    [
      '[trading]',
      'live_enabled = true',
      'symbols = ["ESH24", "NQM4", "CLZ24"]',
      '[fees]',
      'maker_fee = -0.2',
      '[simulation]',
      'start_date = 2024-03-01', // TOML local date literal
      'end_date = "2024-03-08"',
      '[execution]',
      'queue_model = "risk_averse"',
      '[http]',
      'cors_origins = []',
      'stream_hz = 100',
    ].join('\n'),
    'x.toml',
  );
  assert.is(cfg.trading.live_enabled, true, 'live_enabled = true is valid config (the engine refuses it)');
  assert.equal(cfg.trading.symbols, ['ESH24', 'NQM4', 'CLZ24']);
  assert.is(cfg.fees.maker_fee, -0.2);
  assert.is(cfg.simulation.start_date, '2024-03-01');
  assert.is(cfg.execution.queue_model, 'risk_averse');
  assert.equal(cfg.http.cors_origins, []);
});

// ------------------------------------------------------------------------------------- errors

test('wrong types name key, value and expectation', () => {
  expectIssue('metrics_port = "9090"', 'metrics_port', '"9090"', /an integer in 1\.\.65535/);
  expectIssue('[risk]\nenable_kill_switch = "yes"', 'risk.enable_kill_switch', '"yes"', /true or false/);
  expectIssue('[trading]\nsymbols = "ESH24"', 'trading.symbols', '"ESH24"', /array of month-coded contract symbols/);
  expectIssue('[fees]\nmaker_fee = "0.25"', 'fees.maker_fee', '"0.25"', /a number \(USD per contract per fill/);
  expectIssue('risk = 5', 'risk', '5', /a table \[risk\]/);
  expectIssue('[latency]\norder_latency_ns = 1.5', 'latency.order_latency_ns', '1.5', /an integer >= 0 \(nanoseconds\)/);
  expectIssue('log_level = "verbose"', 'log_level', '"verbose"', /one of "trace", "debug", "info", "warn", "error"/);
  expectIssue('[execution]\nqueue_model = "fifo"', 'execution.queue_model', '"fifo"', /one of "power", "risk_averse"/);
  expectIssue('[simulation]\nengine_idle = "sleep"', 'simulation.engine_idle', '"sleep"', /one of "spin", "busy_poll", "block"/);
});

test('out of range values name key, value and range', () => {
  expectIssue('metrics_port = 70000', 'metrics_port', '70000', /1\.\.65535/);
  expectIssue('[trading]\nmax_position = 0', 'trading.max_position', '0', /an integer >= 1/);
  expectIssue('[trading]\ninitial_capital = -5.0', 'trading.initial_capital', '-5', /a number >= 1 \(USD\), at most 10000000000/);
  expectIssue('[latency]\njitter_ns = -1', 'latency.jitter_ns', '-1', /an integer >= 0/);
  expectIssue('[risk]\nmax_daily_loss = 0', 'risk.max_daily_loss', '0', /a number >= 1 \(USD\), at most /);
  expectIssue('[simulation]\nseed = -3', 'simulation.seed', '-3', /an integer >= 0/);
  expectIssue('[simulation]\nspeed = 0', 'simulation.speed', '0', /a number > 0/);
  expectIssue('[strategy]\nskew_factor = -0.1', 'strategy.skew_factor', '-0.1', /a number >= 0/);
  expectIssue('[http]\nstream_hz = 200', 'http.stream_hz', '200', /\(0, 100\]/);
  expectIssue('[backtest]\nmax_days = 0', 'backtest.max_days', '0', /an integer >= 1/);
  expectIssue('[risk]\nmax_drawdown_pct = 0', 'risk.max_drawdown_pct', '0', /fraction in \(0, 1\]/);
});

test('max_drawdown_pct = 6 is rejected as not a fraction, with the documented message', () => {
  const e = expectIssue('[risk]\nmax_drawdown_pct = 6', 'risk.max_drawdown_pct', '6', /fraction/);
  assert.is(e.message, 'config.toml: risk.max_drawdown_pct = 6: expected a fraction in (0, 1], e.g. 0.06 for 6%');
  assert.equal(e.issues, [{ key: 'risk.max_drawdown_pct', value: 6, expected: 'a fraction in (0, 1], e.g. 0.06 for 6%' }]);
  assert.is(e.source, 'config.toml');
  assert.is(e.name, 'ConfigError');
});

test('unknown keys are errors, with a suggestion for typos', () => {
  const e = expectIssue('[risk]\nmax_drawdwn_pct = 0.06', 'risk.max_drawdwn_pct', '0.06', /known key in \[risk\]/);
  assert.match(e.message, /did you mean "max_drawdown_pct"/);
  expectIssue('colour = "blue"', 'colour', '"blue"', /known key at the top level/);
  expectIssue('[strategies]\norder_size = 1', 'strategies', '{"order_size":1}', /known key at the top level.*strategy/);
});

test('symbols: unknown root, malformed code, duplicates, empty list', () => {
  const unknown = expectIssue('[trading]\nsymbols = ["XXH24"]', 'trading.symbols[0]', '"XXH24"', /unknown contract root 'XX'/);
  assert.match(unknown.message, /known: ES, NQ/);
  expectIssue('[trading]\nsymbols = ["ESH24", "ES24"]', 'trading.symbols[1]', '"ES24"', /malformed contract symbol 'ES24'/);
  expectIssue('[trading]\nsymbols = ["ESA24"]', 'trading.symbols[0]', '"ESA24"', /month code/);
  expectIssue('[trading]\nsymbols = ["ESH24", "ESH4"]', 'trading.symbols[1]', '"ESH4"', /unique symbols.*trading\.symbols\[0\]/);
  expectIssue('[trading]\nsymbols = []', 'trading.symbols', '[]', /non-empty array/);
  expectIssue('[trading]\nsymbols = ["ESH24", 5]', 'trading.symbols[1]', '5', /contract symbol/);
});

test('dates: malformed, impossible, end before start; session clock', () => {
  expectIssue('[simulation]\nstart_date = "2024-1-2"', 'simulation.start_date', '"2024-1-2"', /YYYY-MM-DD/);
  expectIssue('[simulation]\nend_date = "2024-02-30"', 'simulation.end_date', '"2024-02-30"', /calendar date/);
  expectIssue(
    '[simulation]\nstart_date = "2024-03-05"\nend_date = "2024-03-01"',
    'simulation.end_date',
    '"2024-03-01"',
    /on or after simulation\.start_date \("2024-03-05"\)/,
  );
  // end before the default start date: the effective (default) start is named
  expectIssue('[simulation]\nend_date = "2023-12-29"', 'simulation.end_date', '"2023-12-29"', /"2024-01-02"/);
  expectIssue('[simulation]\nsession_start = "9:30"', 'simulation.session_start', '"9:30"', /HH:MM/);
  expectIssue('[simulation]\nsession_end = "24:00"', 'simulation.session_end', '"24:00"', /HH:MM/);
  expectIssue('[simulation]\nsession_end = "09:00"', 'simulation.session_end', '"09:00"', /after simulation\.session_start \("09:30"\)/);
});

test('cross-field checks: order sizes', () => {
  expectIssue('[strategy]\norder_size = 11', 'strategy.order_size', '11', /<= trading\.max_order_size \(10\)/);
  expectIssue('[trading]\nmax_position = 5', 'trading.max_order_size', '10', /<= trading\.max_position \(5\)/);
  assert.is(parseConfig('[trading]\nmax_order_size = 20\n[strategy]\norder_size = 20', 'x.toml').strategy.order_size, 20);
});

test('several problems are all reported, one line each', () => {
  const e = configError('metrics_port = 0\n[risk]\nmax_drawdown_pct = 6\n[fees]\ntaker_fee = "x"');
  assert.equal(e.issues.map((i) => i.key).sort(), ['fees.taker_fee', 'metrics_port', 'risk.max_drawdown_pct']);
  assert.is(e.message.split('\n').length, 3);
  for (const line of e.message.split('\n')) assert.ok(line.startsWith('config.toml: '), line);
});

test('TOML syntax errors name the file, line and column', () => {
  const e = configError('name = "x"\n[risk]\nmax_position = = 3\n');
  assert.match(e.message, /^config\.toml: TOML syntax error at line 3, column \d+: /);
  assert.equal(e.issues, []);
  const dup = configError('[risk]\nmax_position = 1\nmax_position = 2\n');
  assert.match(dup.message, /config\.toml: TOML syntax error at line 3/);
  assert.match(dup.message, /max_position/);
});

// ------------------------------------------------------------------------------------- loading

test('loadConfig: --config path, ENGINE_CONFIG, precedence and missing files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfgtest-'));
  try {
    const a = join(dir, 'a.toml');
    const b = join(dir, 'b.toml');
    writeFileSync(a, 'name = "from-flag"\n');
    writeFileSync(b, 'name = "from-env"\n');

    const viaEnv = loadConfig({ env: { ENGINE_CONFIG: b } });
    assert.is(viaEnv.config.name, 'from-env');
    assert.is(viaEnv.path, b);

    const viaFlag = loadConfig({ path: a, env: { ENGINE_CONFIG: b } });
    assert.is(viaFlag.config.name, 'from-flag', '--config beats ENGINE_CONFIG');
    assert.is(viaFlag.path, a);

    const shipped = loadConfig({ env: { ENGINE_CONFIG: '' } });
    assert.is(shipped.path, defaultConfigPath(), 'an empty ENGINE_CONFIG counts as unset');

    const missing = join(dir, 'missing.toml');
    assert.throws(
      () => loadConfig({ path: missing, env: {} }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(missing) && e.message.includes('--config') && /does not exist/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ env: { ENGINE_CONFIG: missing } }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(missing) && e.message.includes('ENGINE_CONFIG'),
    );
    // an explicit missing file never falls back to the shipped config, even when the env one exists
    assert.throws(
      () => loadConfig({ path: missing, env: { ENGINE_CONFIG: b } }),
      (e: unknown) => e instanceof ConfigError && e.message.includes(missing),
    );
    assert.throws(
      () => loadConfig({ path: dir, env: {} }),
      (e: unknown) => e instanceof ConfigError && /is a directory/.test(e.message),
    );

    // validation messages name the file as given
    writeFileSync(a, '[risk]\nmax_drawdown_pct = 6\n');
    assert.throws(
      () => loadConfig({ path: a, env: {} }),
      (e: unknown) => e instanceof ConfigError && e.message === `${a}: risk.max_drawdown_pct = 6: expected a fraction in (0, 1], e.g. 0.06 for 6%`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------------------------- logging

function capture() {
  const lines: string[] = [];
  return {
    lines,
    records: () =>
      lines
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    dest: { write: (s: string) => void lines.push(s) },
  };
}

test('log: RUST_LOG beats the config level; config level applies otherwise', () => {
  const a = capture();
  const la = createLogger({ configLevel: 'error', env: { RUST_LOG: 'debug' }, destination: a.dest });
  la.debug('d');
  assert.is(la.level, 'debug');
  assert.equal(
    a.records().map((r) => [r.level, r.msg]),
    [['debug', 'd']],
  );

  const b = capture();
  const lb = createLogger({ configLevel: 'warn', env: {}, destination: b.dest });
  lb.info('hidden');
  lb.warn('shown');
  assert.equal(
    b.records().map((r) => r.msg),
    ['shown'],
  );

  assert.is(createLogger({ env: {}, destination: capture().dest }).level, 'info');
  assert.is(createLogger({ env: { RUST_LOG: 'trace' }, destination: capture().dest }).level, 'trace');
  assert.is(createLogger({ env: { RUST_LOG: 'WARN' }, destination: capture().dest }).level, 'warn');
});

test('log: an invalid RUST_LOG falls back to info with a warning line', () => {
  const c = capture();
  const l = createLogger({ configLevel: 'error', env: { RUST_LOG: 'loud' }, destination: c.dest });
  assert.is(l.level, 'info');
  const [w] = c.records();
  assert.is(w.level, 'warn');
  assert.match(w.msg, /invalid RUST_LOG value "loud": expected one of trace, debug, info, warn, error; using info/);
});

test('log: RUST_BACKTRACE=1 toggles stack traces in error logs', () => {
  const err = new Error('boom', { cause: new TypeError('inner') });
  const off = capture();
  createLogger({ env: {}, destination: off.dest }).error(err, 'failed');
  const [r0] = off.records();
  assert.equal(r0.err, { type: 'Error', message: 'boom', cause: { type: 'TypeError', message: 'inner' } });

  const on = capture();
  createLogger({ env: { RUST_BACKTRACE: '1' }, destination: on.dest }).error({ err }, 'failed');
  const [r1] = on.records();
  assert.is(r1.err.type, 'Error');
  assert.is(r1.err.message, 'boom');
  assert.match(r1.err.stack, /Error: boom\n\s+at /);
  assert.match(r1.err.cause.stack, /TypeError: inner/);

  const zero = capture();
  createLogger({ env: { RUST_BACKTRACE: '0' }, destination: zero.dest }).error(err, 'failed');
  assert.not.ok('stack' in zero.records()[0].err);
});

test('log: ConfigError issues are kept in the serialized error', () => {
  const c = capture();
  const e = configError('[risk]\nmax_drawdown_pct = 6');
  createLogger({ env: {}, destination: c.dest }).error(e, 'bad config');
  const [r] = c.records();
  assert.is(r.err.type, 'ConfigError');
  assert.is(r.err.issues[0].key, 'risk.max_drawdown_pct');
});

test('version', () => {
  assert.is(VERSION, 'v0.1.0');
});

test.run();
