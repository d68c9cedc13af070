// Every config value and backtest request field has a lower and an upper bound (src/wire/bounds.ts),
// and the error names the key or field, the value and the range (issue 16, §5).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateBacktestRequest } from '../../../src/backtest/request.ts';
import { parseConfig } from '../../../src/config/load.ts';
import { defaultConfig } from '../../../src/config/schema.ts';
import { configError } from '../../helpers/config-error.ts';

/** [table, key, largest accepted, smallest refused above it, expected text] for each bounded number. */
const UPPER: [string, string, string, string, RegExp][] = [
  ['trading', 'initial_capital', '1e10', '1.0000001e10', /a number >= 1 \(USD\), at most 10000000000/],
  ['trading', 'max_position', '100000', '100001', /an integer >= 1 \(contracts, absolute net position\), at most 100000/],
  ['trading', 'max_order_size', '100000', '100001', /at most 100000/],
  ['latency', 'order_latency_ns', '60000000000', '60000000001', /an integer >= 0 \(nanoseconds\), at most 60000000000/],
  ['latency', 'jitter_ns', '1000000000', '1000000001', /an integer >= 0 \(nanoseconds\), at most 1000000000/],
  ['risk', 'max_daily_loss', '1e10', '2e10', /at most 10000000000/],
  ['risk', 'max_drawdown_pct', '1', '1.01', /a fraction in \(0, 1\]/],
  ['fees', 'maker_fee', '100', '100.5', /in \[-100, 100\]/],
  ['simulation', 'seed', '4294967295', '4294967296', /an integer >= 0, at most 4294967295/],
  ['simulation', 'speed', '10000', '10001', /a number > 0 \(simulated seconds per wall-clock second\), at most 10000/],
  ['simulation', 'activity', '100', '101', /at most 100/],
  ['execution', 'queue_power', '100', '101', /at most 100/],
  ['strategy', 'spread_multiplier', '100', '101', /a number > 0, at most 100/],
  ['strategy', 'skew_factor', '1000', '1001', /a number >= 0, at most 1000/],
  ['strategy', 'flatten_minutes', '1440', '1441', /at most 1440/],
  ['backtest', 'max_days', '366', '367', /an integer >= 1 .*, at most 366/],
  ['backtest', 'pool_size', '256', '257', /an integer >= 0 \(worker threads; 0 = number of CPUs\), at most 256/],
  ['backtest', 'max_queued_sessions', '100000', '100001', /at most 100000/],
  ['backtest', 'session_seconds_estimate', '3600', '3601', /a number in 0.1..3600/],
  ['storage', 'max_runs', '1000000', '1000001', /at most 1000000/],
  ['storage', 'max_bytes', '1125899906842624', '1125899906842625', /at most 1125899906842624/],
  ['storage', 'max_age_days', '36500', '36501', /at most 36500/],
  ['storage', 'max_record_bytes', '67108864', '67108865', /at most 67108864/],
  ['storage', 'idempotency_ttl_hours', '8760', '8761', /at most 8760/],
  ['http', 'max_sse_clients', '100000', '100001', /at most 100000/],
  ['http', 'rate_limit_requests', '1000000', '1000001', /at most 1000000/],
  ['http', 'rate_limit_window_s', '86400', '86401', /at most 86400/],
];

test('every bounded config number accepts its upper bound and refuses past it, naming key, value and range', () => {
  for (const [table, key, max, over, expected] of UPPER) {
    // Cross-checked keys rise with it: max_order_size <= max_position, max_days <= max_queued_sessions.
    const extra = key === 'max_order_size' ? 'max_position = 100000\n' : key === 'max_days' ? 'max_queued_sessions = 100000\n' : '';
    const ok = parseConfig(`[${table}]\n${extra}${key} = ${max}\n`, 'config.toml') as unknown as Record<string, Record<string, number>>;
    assert.is(ok[table][key], Number(max), `${table}.${key} = ${max} is accepted`);
    const e = configError(`[${table}]\n${extra}${key} = ${over}\n`);
    const issue = e.issues.find((i) => i.key === `${table}.${key}`);
    assert.ok(issue, `${table}.${key} = ${over} is refused (issues: ${e.message})`);
    assert.match(issue!.expected, expected);
    assert.ok(e.message.includes(`config.toml: ${table}.${key} = ${String(Number(over))}: expected `), e.message);
  }
});

test('initial_capital 1e308 and 5e-324 are refused; max_drawdown_pct keeps accepting 0.001', () => {
  for (const v of ['1e308', '5e-324', '0.5']) {
    const e = configError(`[trading]\ninitial_capital = ${v}\n`);
    assert.equal(
      e.issues.map((i) => i.key),
      ['trading.initial_capital'],
      v,
    );
  }
  assert.is(parseConfig('[risk]\nmax_drawdown_pct = 0.001\n', 'config.toml').risk.max_drawdown_pct, 0.001);
  assert.is(parseConfig('[trading]\ninitial_capital = 1\n', 'config.toml').trading.initial_capital, 1);
});

test('cors_origins: scheme://host[:port] origins, or "*" alone', () => {
  for (const ok of ['["https://mm.example:8443"]', '["http://localhost:3000", "http://[::1]:3000"]', '["*"]', '[]']) {
    parseConfig(`[http]\ncors_origins = ${ok}\n`, 'config.toml');
  }
  for (const [bad, what] of [
    ['["localhost:3000"]', /an origin scheme:\/\/host\[:port\]/],
    ['["http://localhost:3000/"]', /no path, no trailing slash/],
    ['["http://localhost:3000/app"]', /no path/],
    ['["ftp://files.example"]', /an origin/],
    ['["*", "http://localhost:3000"]', /"\*" must be the only entry/],
    ['"*"', /an array of origins/],
  ] as const) {
    const e = configError(`[http]\ncors_origins = ${bad}\n`);
    assert.ok(
      e.issues.some((i) => i.key.startsWith('http.cors_origins') && what.test(i.expected)),
      `${bad}: ${e.message}`,
    );
  }
});

test('[http] host is an address to bind; allowed_hosts are names without a port', () => {
  assert.is(parseConfig('', 'config.toml').http.host, '127.0.0.1', 'loopback by default');
  for (const h of ['0.0.0.0', '::', '::1', '10.0.0.5', 'localhost']) assert.is(parseConfig(`[http]\nhost = "${h}"\n`, 'config.toml').http.host, h);
  assert.match(configError('[http]\nhost = "all"\n').message, /http\.host = "all": expected an IP address to listen on/);
  assert.equal(parseConfig('[http]\nallowed_hosts = ["engine", "mm.example.com", "[::1]", "10.0.0.5"]\n', 'config.toml').http.allowed_hosts, [
    'engine',
    'mm.example.com',
    '[::1]',
    '10.0.0.5',
  ]);
  assert.match(
    configError('[http]\nallowed_hosts = ["engine:9090"]\n').message,
    /http\.allowed_hosts\[0\] = "engine:9090": expected a host name or IP address without a port/,
  );
  assert.match(configError('[http]\napi_token_file = ""\n').message, /http\.api_token_file = "": expected a non-empty string/);
});

test('backtest request: every number is bounded; the error names the field, the value and the range', () => {
  const c = defaultConfig();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ initialCapital: 1e308 }, 'initialCapital', /expected a number in \[1, 10000000000\] \(USD\), got 1e\+308/],
    [{ initialCapital: 5e-324 }, 'initialCapital', /got 5e-324/],
    [{ spreadMultiplier: 101 }, 'spreadMultiplier', /a number <= 100, got 101/],
    [{ skewFactor: 1e6 }, 'skewFactor', /a number <= 1000, got 1000000/],
    [{ inventoryLimit: 100_001 }, 'inventoryLimit', /an integer in 1\.\.100000 \(contracts\), got 100001/],
    [{ positionLimit: 0 }, 'positionLimit', /an integer in 1\.\.100000/],
    [{ seed: 2 ** 32 }, 'seed', /an integer < 2\^32, got 4294967296/],
    [{ maxDrawdown: 0 }, 'maxDrawdown', /a fraction in \(0, 1\]/],
    [{ symbol: `ES${' '.repeat(65_000)}` }, 'symbol', /at most 16 characters, got "ES {20}/],
    [{ startDate: '9999-01-02' }, 'startDate', /outside the CME calendar's years 2015-2035/],
    [{ startDate: '1970-01-02' }, 'startDate', /outside the CME calendar's years/],
    [{ startDate: '2024-01-02T00:00:00Z' }, 'startDate', /a calendar date "YYYY-MM-DD"/],
  ];
  for (const [body, field, message] of cases) {
    const r = validateBacktestRequest(body, c);
    assert.ok(!r.ok, `${JSON.stringify(body).slice(0, 60)} is refused`);
    if (r.ok) continue;
    const e = r.errors.find((x) => x.field === field);
    assert.ok(e, `${field} named in ${JSON.stringify(r.errors)}`);
    assert.match(e!.message, message);
    assert.ok(e!.message.length < 400, 'a long value is shortened in the message');
  }
  const small = validateBacktestRequest({ symbol: 'ES', maxDrawdown: 0.001, initialCapital: 1e10 }, c);
  assert.ok(small.ok, 'maxDrawdown 0.001 and initialCapital 1e10 are accepted');
});

test.run();
