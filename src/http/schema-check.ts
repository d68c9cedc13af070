// A small validator for the JSON Schema subset openapi.ts uses ($ref, type, properties, required,
// additionalProperties, items, enum, anyOf/oneOf, minimum/maximum/exclusiveMinimum). The tests use
// it to check real responses against the published document, so the document stays accurate.

import type { JsonType, OpenApiDocument, Schema } from './openapi.ts';

function typeOf(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

function typeMatches(t: JsonType, v: unknown): boolean {
  const actual = typeOf(v);
  if (t === 'number') return actual === 'number' || actual === 'integer';
  return t === actual;
}

/** Returns one message per violation (empty = valid). `path` names the value in messages. */
export function checkSchema(doc: OpenApiDocument, schema: Schema, value: unknown, path = '$'): string[] {
  const errors: string[] = [];
  const visit = (s: Schema, v: unknown, p: string): void => {
    if (s.$ref) {
      const name = s.$ref.replace('#/components/schemas/', '');
      const target = doc.components.schemas[name];
      if (!target) errors.push(`${p}: unresolved $ref ${s.$ref}`);
      else visit(target, v, p);
      return;
    }
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) {
      const ok = alternatives.filter((alt) => checkSchema(doc, alt, v, p).length === 0).length;
      if (s.oneOf ? ok !== 1 : ok === 0) errors.push(`${p}: matches ${ok} of the ${alternatives.length} alternatives`);
      return;
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (!types.some((t) => typeMatches(t, v))) {
        errors.push(`${p}: expected ${types.join(' | ')}, got ${typeOf(v)}`);
        return;
      }
    }
    if (s.enum && !s.enum.includes(v as string)) errors.push(`${p}: ${JSON.stringify(v)} is not one of ${JSON.stringify(s.enum)}`);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) errors.push(`${p}: not a finite number`);
      if (s.minimum !== undefined && v < s.minimum) errors.push(`${p}: ${v} < minimum ${s.minimum}`);
      if (s.maximum !== undefined && v > s.maximum) errors.push(`${p}: ${v} > maximum ${s.maximum}`);
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) errors.push(`${p}: ${v} <= exclusiveMinimum ${s.exclusiveMinimum}`);
    }
    if (Array.isArray(v) && s.items) v.forEach((item, i) => visit(s.items!, item, `${p}[${i}]`));
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      for (const k of s.required ?? []) if (!(k in o)) errors.push(`${p}: missing required field "${k}"`);
      for (const [k, val] of Object.entries(o)) {
        const ps = s.properties?.[k];
        if (ps) visit(ps, val, `${p}.${k}`);
        else if (s.additionalProperties === false) errors.push(`${p}: field "${k}" is not documented`);
        else if (typeof s.additionalProperties === 'object') visit(s.additionalProperties, val, `${p}.${k}`);
      }
    }
  };
  visit(schema, value, path);
  return errors;
}
