// The documentation holds together: every relative link in README.md, CONTRIBUTING.md and
// docs/*.md names a file (or folder) that exists, every #anchor names a heading of its page, and
// the README stays a short entry (at most 260 lines) with the manual in docs/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../../helpers/cli.ts';
import { begin, end, TABLES, withTable } from '../../../scripts/docs-tables.ts';

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown without its fenced code blocks and inline code spans (links there are not links). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every [label](target) and ![alt](target) whose target is relative. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z+.-]*:/i.test(t));
}

test('the anchor rule matches GitHub on headings with punctuation', () => {
  const a = anchors('# A: b, c (d)\n## HTTP API (port 9090, `PORT` overrides)\n## A: b, c (d)\n```\n# not a heading\n```\n');
  assert.equal([...a], ['a-b-c-d', 'http-api-port-9090-port-overrides', 'a-b-c-d-1']);
});

test('every relative link in README.md and docs/*.md resolves, anchors included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    if (!existsSync(join(ROOT, page))) {
      broken.push(`${page}: missing`);
      continue;
    }
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const link of relativeLinks(text)) {
      checked++;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${page}: ${link} (no file ${relative(ROOT, file)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${page}: ${link} (no heading #${anchor} in ${relative(ROOT, file)})`);
      }
    }
  }
  assert.ok(checked > 100, `links checked: ${checked}`);
  assert.equal(broken, []);
});

test('the README is a short entry: at most 260 lines, with a link to every docs page', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 260, `README.md has ${lines} lines`);
  const linked = new Set(relativeLinks(readme).map((l) => l.split('#')[0]));
  const unlinked = pages.filter((p) => p.startsWith('docs/') && !linked.has(p));
  assert.equal(unlinked, []);
});

test("the README's folder map names every top-level folder and every folder in src/", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const map = readme.slice(readme.indexOf('\n## Folder map\n'));
  const dirs = (d: string) =>
    readdirSync(join(ROOT, d), { withFileTypes: true })
      .filter(
        (e) =>
          e.isDirectory() &&
          !['node_modules', 'dist', 'data', 'logs', 'scratch', 'test-artifacts', 'coverage'].includes(e.name) &&
          !(d === '.' && e.name.startsWith('.') && e.name !== '.ci'),
      )
      .map((e) => (d === '.' ? `${e.name}/` : `${d}/${e.name}/`));
  const missing = [...dirs('.'), ...dirs('src')].filter((d) => !map.includes(`\`${d}\``));
  assert.equal(missing, []);
});

test('the generated tables of docs/ match the code they come from (routes, result fields)', () => {
  for (const t of TABLES) {
    const page = readFileSync(join(ROOT, t.page), 'utf8');
    assert.ok(page.includes(begin(t)) && page.includes(end(t)), `${t.page} has the "${t.name}" block`);
    assert.ok(t.generate().split('\n').length > 10, `${t.name}: a table of more than 10 rows`);
    assert.fixture(page, withTable(page, t), `${t.page}: ${t.name} (node --import tsx scripts/docs-tables.ts --write)`);
  }
});

test('docs/http-api.md names the backtest routes and docs/metrics.md the headline figures', () => {
  const routes = readFileSync(join(ROOT, 'docs/http-api.md'), 'utf8');
  for (const r of ['| POST | `/api/backtest` |', '| GET | `/api/backtests/{id}` |', '| GET | `/openapi.json` |']) assert.ok(routes.includes(r), r);
  const metrics = readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8');
  for (const f of ['total_pnl', 'max_drawdown_pct', 'sharpe_ratio', 'markouts', 'kill_switch']) assert.ok(metrics.includes(`| \`${f}\` |`), f);
});

test.run();
