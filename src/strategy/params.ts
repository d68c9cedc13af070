// A strategy's declared parameters (ParamDecl) as the one source of their validation: TOML
// ([strategy.<name>]), the HTTP request's `params`, sweep axes, the OpenAPI schema and the
// dashboard's form fields all go through here. Errors name the key, the value and the range.

import type { FieldError } from '../wire/error.ts';
import type { ParamDecl, ParamSpec, ParamValues } from './port.ts';

const KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** What a parameter accepts, in words (the error messages' "expected ..."). */
export function expected(spec: ParamSpec): string {
  if (spec.type === 'boolean') return 'true or false';
  const kind = spec.type === 'integer' ? 'an integer' : 'a number';
  const lo = spec.exclusiveMin ? `> ${spec.min}` : `>= ${spec.min}`;
  return `${kind} ${lo} and <= ${spec.max}${spec.unit ? ` (${spec.unit})` : ''}`;
}

/** Why a value does not fit its declaration, or null when it does. */
export function paramProblem(spec: ParamSpec, v: unknown): string | null {
  if (spec.type === 'boolean') return typeof v === 'boolean' ? null : expected(spec);
  if (typeof v !== 'number' || !Number.isFinite(v)) return expected(spec);
  if (spec.type === 'integer' && !Number.isInteger(v)) return expected(spec);
  if (v < spec.min! || (spec.exclusiveMin && v === spec.min) || v > spec.max!) return expected(spec);
  return null;
}

/** The declaration's own problems (a strategy file's mistakes), or [] when it is sound. */
export function declarationProblems(decl: unknown): string[] {
  if (decl === null || typeof decl !== 'object' || Array.isArray(decl)) return ['params: expected an object of parameter declarations'];
  const out: string[] = [];
  for (const [k, s] of Object.entries(decl as Record<string, ParamSpec>)) {
    if (!KEY.test(k)) out.push(`params.${k}: a parameter name is lower case letters, digits and underscores, starting with a letter`);
    if (s === null || typeof s !== 'object') {
      out.push(`params.${k}: expected { type, default, min, max, description }`);
      continue;
    }
    if (s.type !== 'number' && s.type !== 'integer' && s.type !== 'boolean') out.push(`params.${k}.type: expected "number", "integer" or "boolean"`);
    else if (s.type !== 'boolean' && (!Number.isFinite(s.min) || !Number.isFinite(s.max) || s.min! > s.max!))
      out.push(`params.${k}: numbers need finite bounds min <= max`);
    else {
      const p = paramProblem(s, s.default);
      if (p !== null) out.push(`params.${k}.default: ${JSON.stringify(s.default)} is not ${p}`);
    }
    if (typeof s.description !== 'string' || s.description.length === 0) out.push(`params.${k}.description: expected a non-empty string`);
  }
  return out;
}

/** The declared defaults. */
export function defaults(decl: ParamDecl): Record<string, number | boolean> {
  const out: Record<string, number | boolean> = {};
  for (const [k, s] of Object.entries(decl)) out[k] = s.default;
  return out;
}

/**
 * `base` with every key of `given` applied (unknown keys and bad values are errors naming
 * `${field}.${key}`); the result has every declared key.
 */
export function applyParams(
  decl: ParamDecl,
  base: ParamValues,
  given: unknown,
  field: string,
): { ok: true; values: ParamValues } | { ok: false; errors: FieldError[] } {
  const values: Record<string, number | boolean> = { ...base };
  const errors: FieldError[] = [];
  if (given === undefined || given === null) return { ok: true, values };
  if (typeof given !== 'object' || Array.isArray(given)) return { ok: false, errors: [{ field, message: 'expected an object of parameter values' }] };
  for (const [k, v] of Object.entries(given as Record<string, unknown>)) {
    const spec = Object.prototype.hasOwnProperty.call(decl, k) ? decl[k] : undefined;
    if (spec === undefined) {
      errors.push({ field: `${field}.${k}`, message: `unknown parameter (known: ${Object.keys(decl).join(', ') || 'none'})` });
      continue;
    }
    const p = paramProblem(spec, v);
    if (p !== null) errors.push({ field: `${field}.${k}`, message: `expected ${p}, got ${shown(v)}` });
    else values[k] = v as number | boolean;
  }
  return errors.length ? { ok: false, errors } : { ok: true, values };
}

function shown(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  } catch {
    s = String(v);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** JSON Schema of the parameters (OpenAPI, the dashboard's form). */
export function paramsJsonSchema(decl: ParamDecl): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(decl)) {
    const p: Record<string, unknown> = { type: s.type, default: s.default, description: s.unit ? `${s.description} (${s.unit})` : s.description };
    if (s.type !== 'boolean') {
      if (s.exclusiveMin) p.exclusiveMinimum = s.min;
      else p.minimum = s.min;
      p.maximum = s.max;
    }
    properties[k] = p;
  }
  return { type: 'object', additionalProperties: false, properties };
}
