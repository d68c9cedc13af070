// A sweep grid: each axis a key and its values, from `key=v1,v2,...` or `key=start:stop:step`;
// the points are the cartesian product in the order the axes were given, the last axis varying
// fastest (grid order: the order of --out and of every listing).

import { SWEEP_KEY_LIST, SWEEP_KEY_NAMES, type SweepKey, sweepKey } from '../wire/sweep-keys.ts';

export type SweepValue = number | boolean | string;

export interface SweepAxis {
  key: SweepKey;
  values: SweepValue[];
}

/** One grid point: the value of each axis, in axis order. */
export type SweepPoint = SweepValue[];

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Most values one axis may list or a range may expand to (a typo such as 0:1:0.00001 stops here). */
export const MAX_AXIS_VALUES = 1000;

/** Decimal places of a number as written, so range values print as 0.3, not 0.30000000000000004. */
const decimals = (s: string) => (s.includes('.') ? s.length - s.indexOf('.') - 1 : 0);

function parseNumber(key: string, s: string): Parsed<number> {
  const v = Number(s);
  if (s.trim() === '' || !Number.isFinite(v)) return { ok: false, error: `${key}: ${JSON.stringify(s)} is not a number` };
  return { ok: true, value: v };
}

function parseRange(key: string, text: string): Parsed<number[]> {
  const parts = text.split(':');
  if (parts.length !== 3) return { ok: false, error: `${key}=${text}: expected start:stop:step, e.g. 0.5:2:0.25` };
  const nums: number[] = [];
  for (const p of parts) {
    const n = parseNumber(key, p);
    if (!n.ok) return n;
    nums.push(n.value);
  }
  const [start, stop, step] = nums;
  if (!(step > 0)) return { ok: false, error: `${key}=${text}: step must be > 0` };
  if (stop < start) return { ok: false, error: `${key}=${text}: stop must be >= start` };
  const d = Math.max(...parts.map((p) => decimals(p.trim())));
  const count = Math.floor((stop - start) / step + 1e-9) + 1;
  if (count > MAX_AXIS_VALUES) return { ok: false, error: `${key}=${text}: ${count} values, at most ${MAX_AXIS_VALUES} per key` };
  return { ok: true, value: Array.from({ length: count }, (_, i) => Number((start + i * step).toFixed(d))) };
}

function parseValue(key: SweepKey, label: string, s: string): Parsed<SweepValue> {
  if (key.kind === 'number') return parseNumber(label, s);
  if (key.kind === 'param') return s === 'true' || s === 'false' ? { ok: true, value: s === 'true' } : parseNumber(label, s);
  if (key.kind === 'boolean') {
    if (s === 'true' || s === 'false') return { ok: true, value: s === 'true' };
    return { ok: false, error: `${label}: ${JSON.stringify(s)} is not true or false` };
  }
  return s === '' ? { ok: false, error: `${label}: empty value` } : { ok: true, value: s };
}

/** Parses one axis `key=v1,v2,...` or `key=start:stop:step` (numbers only). */
export function parseAxis(arg: string): Parsed<SweepAxis> {
  const eq = arg.indexOf('=');
  if (eq <= 0) return { ok: false, error: `${JSON.stringify(arg)}: expected KEY=v1,v2,... or KEY=start:stop:step` };
  const label = arg.slice(0, eq).trim();
  const text = arg.slice(eq + 1).trim();
  const key = sweepKey(label);
  if (!key) return { ok: false, error: `unknown sweep key ${JSON.stringify(label)} (known: ${SWEEP_KEY_LIST})` };
  if (text === '') return { ok: false, error: `${label}: no values` };
  if (text.includes(':')) {
    if (key.kind !== 'number' && key.kind !== 'param') return { ok: false, error: `${label}=${text}: a range needs a numeric key; list the values instead` };
    const r = parseRange(label, text);
    return r.ok ? { ok: true, value: { key, values: r.value } } : r;
  }
  const values: SweepValue[] = [];
  for (const s of text.split(',')) {
    const v = parseValue(key, label, s.trim());
    if (!v.ok) return v;
    if (values.includes(v.value)) return { ok: false, error: `${label}: value ${s.trim()} listed twice` };
    values.push(v.value);
  }
  if (values.length > MAX_AXIS_VALUES) return { ok: false, error: `${label}: ${values.length} values, at most ${MAX_AXIS_VALUES} per key` };
  return { ok: true, value: { key, values } };
}

/** Parses every axis; a key given twice (also as config key and camelCase name) is an error. */
export function parseGrid(args: readonly string[]): Parsed<SweepAxis[]> {
  const axes: SweepAxis[] = [];
  for (const a of args) {
    const r = parseAxis(a);
    if (!r.ok) return r;
    if (axes.some((x) => x.key === r.value.key)) return { ok: false, error: `sweep key ${r.value.key.key} given more than once` };
    axes.push(r.value);
  }
  return { ok: true, value: axes };
}

export function pointCount(axes: readonly SweepAxis[]): number {
  return axes.reduce((n, a) => n * a.values.length, 1);
}

/** The grid points in grid order (last axis fastest). */
export function gridPoints(axes: readonly SweepAxis[]): SweepPoint[] {
  let points: SweepPoint[] = [[]];
  for (const a of axes) points = points.flatMap((p) => a.values.map((v) => [...p, v]));
  return points;
}

const KIND_EXPECTED = { number: 'numbers', boolean: 'true or false', string: 'strings', param: 'numbers or true/false' } as const;

/**
 * The axes of an HTTP grid `{ name: [values] }` (camelCase names, values already JSON-typed).
 * Errors name `grid.<name>`.
 */
export function gridAxes(
  grid: Record<string, SweepValue[]>,
  sent: readonly string[] = Object.keys(grid),
): { ok: true; value: SweepAxis[] } | { ok: false; errors: { field: string; message: string }[] } {
  const axes: SweepAxis[] = [];
  const errors: { field: string; message: string }[] = [];
  // Keys the request had that parsing dropped ("__proto__" sets a prototype, not a key): unknown,
  // not silently gone (the sweep would otherwise run fewer axes than asked for).
  for (const name of sent) {
    if (!Object.hasOwn(grid, name)) errors.push({ field: `grid.${name}`, message: `unknown sweep parameter (known: ${SWEEP_KEY_NAMES})` });
  }
  if (sent.length === 0)
    errors.push({ field: 'grid', message: `expected at least one parameter, e.g. {"spreadMultiplier": [1, 1.5]} (known: ${SWEEP_KEY_NAMES})` });
  for (const [name, values] of Object.entries(grid)) {
    const key = sweepKey(name);
    const field = `grid.${name}`;
    if (!key || key.name !== name) {
      errors.push({ field, message: `unknown sweep parameter (known: ${SWEEP_KEY_NAMES})` });
      continue;
    }
    const wrong = values.find((v) => (key.kind === 'param' ? typeof v !== 'number' && typeof v !== 'boolean' : typeof v !== key.kind));
    if (wrong !== undefined) errors.push({ field, message: `expected ${KIND_EXPECTED[key.kind]}, got ${JSON.stringify(wrong)}` });
    else if (new Set(values).size !== values.length) errors.push({ field, message: 'a value is listed twice' });
    else axes.push({ key, values });
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: axes };
}
