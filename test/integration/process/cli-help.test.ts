// `engine --help` as users run it, against the docs: the flags docs/backtests.md lists and the
// environment variables docs/configuration.md lists are exactly those --help prints, and every flag
// the README's command examples use is one --help prints.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli } from '../../helpers/cli.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text of a page's section: from its "## " heading to the next one. */
function section(path: string, heading: string): string {
  const text = read(path);
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${path} has a "## ${heading}" section`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The part of --help between a heading line and the next blank line. */
function block(help: string, heading: string): string {
  const start = help.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `--help has "${heading}"`);
  const end = help.indexOf('\n\n', start + 1);
  return help.slice(start, end < 0 ? undefined : end);
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

test('--help exits 0 and prints the usage on stdout', () => {
  const r = runCli(['--help']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Usage:/);
  assert.is(r.stderr, '');
});

test("docs/backtests.md's flag list is the flags --help documents", () => {
  const help = runCli(['--help']).stdout;
  const options = block(help, 'Options:');
  const helpFlags = sorted([...options.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]).concat('--help'));
  // The "Flags: `--json` ..., `--fills FILE` ..." paragraph of the CLI section.
  const cli = section('docs/backtests.md', 'Backtest from the command line');
  const at = cli.indexOf('\nFlags: ');
  assert.ok(at >= 0, 'the CLI section has a "Flags:" paragraph');
  const para = cli.slice(at, cli.indexOf('\n\n', at + 1));
  const readmeFlags = sorted([...para.matchAll(/`([^`]*)`/g)].flatMap((m) => [...m[1].matchAll(/--[a-z-]+/g)].map((x) => x[0])));
  // --backtest and --config appear in the section's command lines rather than in the list.
  const commandFlags = sorted([...cli.matchAll(/engine\.js ([^\n]*)/g)].flatMap((m) => [...m[1].matchAll(/--[a-z-]+/g)].map((x) => x[0])));
  assert.equal(sorted([...readmeFlags, ...commandFlags]), helpFlags);
});

test("docs/configuration.md's environment list is the variables --help documents", () => {
  const help = runCli(['--help']).stdout;
  const helpVars = sorted([...block(help, 'Environment:').matchAll(/^ {2}([A-Z_]+) /gm)].map((m) => m[1]));
  const readmeVars = sorted([...section('docs/configuration.md', 'Configuration').matchAll(/^\* `([A-Z_]+)[`=]/gm)].map((m) => m[1]));
  assert.equal(readmeVars, helpVars);
});

test("every flag of the README's command examples is one --help documents", () => {
  const helpFlags = new Set([...block(runCli(['--help']).stdout, 'Options:').matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]).concat('--help'));
  const readme = read('README.md');
  const commands = [...readme.matchAll(/^(?:\$ )?node dist\/engine\.js([^\n]*)/gm)].map((m) => m[1].split('#')[0]);
  assert.ok(commands.length >= 5, `the README shows engine commands (found ${commands.length})`);
  const used = sorted(commands.flatMap((c) => [...c.matchAll(/(?:^|\s)(--[a-z-]+)/g)].map((m) => m[1])));
  assert.equal(
    used.filter((f) => !helpFlags.has(f)),
    [],
  );
});

test('docs/backtests.md shows that stderr carries JSON log lines besides the wall-time line', () => {
  const cli = section('docs/backtests.md', 'Backtest from the command line');
  assert.match(cli, /^\{"level":"info",.*"msg":"backtest started"/m);
  assert.match(cli, /^wall time /m);
});

test.run();
