// House style (CONTRIBUTING.md): no line of the engine's source over 160 characters. Biome's
// formatter wraps code at 160 but never splits a string or a comment, so this holds those too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../helpers/cli.ts';

const MAX = 160;

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

test(`no line in src/ or workers/ is over ${MAX} characters`, () => {
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'workers'))];
  assert.ok(files.length > 100, `found only ${files.length} source files`);
  const long: string[] = [];
  for (const f of files) {
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length > MAX) long.push(`${relative(ROOT, f)}:${i + 1}: ${line.length} characters`);
      });
  }
  assert.equal(long, [], long.join('\n'));
});

test.run();
