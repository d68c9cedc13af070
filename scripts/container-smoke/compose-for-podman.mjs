// Writes the compose file scripts/container-smoke.sh --compose hands podman-compose 1.0.3:
// compose.yaml with the test-only override compose.podman.yaml applied, and the health checks in
// the form podman-compose runs correctly. Prints "service image" per service (the images the
// script must provide).
//
//   node compose-for-podman.mjs compose.yaml compose.podman.yaml out.yaml
//
// Why not `podman-compose -f compose.yaml -f compose.podman.yaml`: podman-compose 1.0.3 merges
// files by appending sequences (an override's `ports` adds to the original's), so the override is
// applied here with the Compose rule for what it sets: mappings merge, scalars and sequences
// replace.
// Health checks: podman-compose 1.0.3 turns ["CMD", a, b, ...] into `/bin/sh -c a' 'b' '...`,
// which is not valid shell once an argument needs quoting (the engine's `node -e "fetch(...)"`).
// The same argument vector as one shell command line (["CMD-SHELL", ...] as a string) runs the
// same program with the same arguments.
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const [composePath, overridePath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: compose-for-podman.mjs compose.yaml override.yaml out.yaml');
  process.exit(2);
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Compose override rule for the keys an override sets: mappings merge, anything else replaces. */
function merge(base, over) {
  if (!isMap(base) || !isMap(over)) return over;
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in base ? merge(base[k], v) : v;
  return out;
}

/** POSIX shell quoting of one argument: bare when safe, else in single quotes. */
function shellQuote(arg) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'"'"'`)}'`;
}

const compose = merge(parse(readFileSync(composePath, 'utf8')), parse(readFileSync(overridePath, 'utf8')));
for (const service of Object.values(compose.services)) {
  const test = service.healthcheck?.test;
  if (Array.isArray(test) && test[0] === 'CMD') service.healthcheck.test = test.slice(1).map(shellQuote).join(' ');
}
// As JSON (which is YAML too): podman-compose reads YAML 1.1, where a plain `yes` is a boolean and
// redis would get `--appendonly True`.
writeFileSync(outPath, `${JSON.stringify(compose, null, 2)}\n`);
for (const [name, service] of Object.entries(compose.services)) console.log(`${name} ${service.image ?? ''}`);
