// GET /openapi.json

import type { ApiContext, App } from '../context.ts';
import { openApiDocument } from '../openapi.ts';

export function registerOpenApi(app: App, _ctx: ApiContext): void {
  const text = JSON.stringify(openApiDocument);
  app.get('/openapi.json', (c) => c.body(text, 200, { 'Content-Type': 'application/json; charset=UTF-8' }));
}
