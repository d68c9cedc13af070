// GET /openapi.json: the document of src/http/openapi.ts, plus the parameters of each strategy
// this engine loaded (components StrategyParams_<name>, generated from their declarations): the
// schema of a backtest request's `params` when it names that strategy.

import { paramsJsonSchema } from '../../strategy/params.ts';
import { registeredStrategies } from '../../strategy/registry.ts';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';
import { openApiDocument } from '../openapi.ts';

/** The document with a component per loaded strategy's parameters (strategies are loaded at start, before the server). */
export function documentWithStrategies(): typeof openApiDocument {
  const schemas: Record<string, unknown> = { ...openApiDocument.components.schemas };
  const refs: { $ref: string }[] = [];
  for (const r of registeredStrategies()) {
    const id = `StrategyParams_${r.def.name}`;
    schemas[id] = {
      ...paramsJsonSchema(r.def.params),
      description: `The \`params\` of a backtest request naming strategy '${r.def.name}' (${r.def.version}): ${r.def.description}`,
    };
    refs.push({ $ref: `#/components/schemas/${id}` });
  }
  // A request's params are those of the strategy it names: one of the loaded strategies' shapes.
  const req = schemas.BacktestRequest as { properties: Record<string, { description?: string }> };
  const params = req.properties.params;
  schemas.BacktestRequest = { ...req, properties: { ...req.properties, params: { description: params.description, anyOf: refs } } };
  return { ...openApiDocument, components: { ...openApiDocument.components, schemas: schemas as typeof openApiDocument.components.schemas } };
}

export function registerOpenApi(app: App, _ctx: ApiContext): void {
  const text = JSON.stringify(documentWithStrategies());
  app.get('/openapi.json', (c) => c.body(text, 200, { 'Content-Type': 'application/json; charset=UTF-8' }));
}
