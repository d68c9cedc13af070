// The generated OpenAPI document passes an outside linter: Redocly CLI's `recommended` rules, with
// no error and no warning, apart from one rule this API does not meet on purpose:
// - no-empty-servers: the base URL is the operator's (host and PORT), so the document names none.
// security-defined holds: every operation declares the optional bearer scheme, or none (the open paths).
// Redocly runs offline: telemetry and the update check are turned off.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '../../../src/http/openapi.ts';
import { documentWithStrategies } from '../../../src/http/routes/openapi.ts';
import { loadStrategies } from '../../../src/strategy/load.ts';

const REDOCLY_CONFIG = `extends:
  - recommended
rules:
  no-empty-servers: off
`;

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** Runs `redocly lint` on `doc`; returns its exit status and JSON report. */
function lint(doc: unknown): { status: number | null; report: LintReport } {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
    writeFileSync(join(dir, 'redocly.yaml'), REDOCLY_CONFIG);
    const r = spawnSync(
      process.execPath,
      ['node_modules/@redocly/cli/bin/cli.js', 'lint', join(dir, 'openapi.json'), '--config', join(dir, 'redocly.yaml'), '--format=json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 120_000,
      },
    );
    assert.is(r.error, undefined, `redocly did not run: ${r.error}`);
    try {
      return { status: r.status, report: JSON.parse(r.stdout) as LintReport };
    } catch {
      throw new Error(`redocly printed no JSON report (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("redocly lint (recommended rules) passes on the generated document with no problem, with the loaded strategies' parameters", async () => {
  await loadStrategies([join(import.meta.dirname, '../../..', 'examples', 'strategies')]);
  const doc = documentWithStrategies();
  assert.ok('StrategyParams_imbalance_quoter' in doc.components.schemas && 'StrategyParams_market_maker' in doc.components.schemas);
  const { status, report } = lint(doc);
  const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  assert.equal(problems, [], `redocly lint problems:\n${problems.join('\n')}`);
  assert.is(status, 0);
});

test('the linter can fail: a broken $ref and an operation without responses are errors', () => {
  const broken = structuredClone(openApiDocument) as unknown as {
    paths: Record<string, Record<string, { responses?: unknown }>>;
    components: { schemas: Record<string, unknown> };
  };
  delete broken.components.schemas.Fill;
  delete broken.paths['/health'].get.responses;
  const { status, report } = lint(broken);
  const rules = new Set(report.problems.map((p) => p.ruleId));
  assert.ok(rules.has('no-unresolved-refs'), `rules reported: ${[...rules].join(', ')}`);
  assert.ok(report.totals.errors >= 2, `errors: ${report.totals.errors}`);
  assert.is.not(status, 0);
});

test.run();
