// Checks values (real responses, stream events) against the served OpenAPI document with ajv, in
// JSON Schema 2020-12 (OpenAPI 3.1's dialect) and with formats (date, date-time) checked.

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as assert from 'uvu/assert';
import { openApiDocument } from '../../src/http/openapi.ts';

const DOC_ID = 'openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
// The document is added whole so that its `#/components/schemas/...` refs resolve; `components`
// is declared so strict mode accepts it as a keyword that holds no validation.
ajv.addKeyword({ keyword: 'components' });
ajv.addSchema({ $id: DOC_ID, components: openApiDocument.components }, DOC_ID);
// Compiled now, at import: compiling blocks the event loop for ~0.2 s, which inside a test would
// stall the server under test (same process) and skew what the test measures.
const validators = new Map(Object.keys(openApiDocument.components.schemas).map((name) => [name, ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`)!]));

/** One message per violation of `component` (e.g. "Fill") by `value`; empty when it conforms. */
export function schemaErrors(component: string, value: unknown): string[] {
  const validate = validators.get(component);
  if (!validate) throw new Error(`no component schema ${component} in the OpenAPI document`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '$'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${e.params.additionalProperty}` : ''}`,
  );
}

/** The component that documents the payload of stream event `event` (x-sse-events). */
export function eventComponent(event: string): string {
  const ref = (openApiDocument['x-sse-events'] as Record<string, { $ref: string } | undefined>)[event];
  if (!ref) throw new Error(`stream event ${event} is not documented`);
  return ref.$ref.split('/').pop()!;
}

export function assertDocumented(component: string, value: unknown): void {
  const errors = schemaErrors(component, value);
  assert.equal(errors, [], `value does not match the documented ${component}:\n${errors.slice(0, 20).join('\n')}`);
}
