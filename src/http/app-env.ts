// The Hono app's type, which every HTTP module names (routes, middleware, the server and the
// raw responses); context.ts holds what the routes are given.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';

/** Hono environment: under @hono/node-server, c.env holds the Node request/response. */
export type AppEnv = { Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse } };
export type App = Hono<AppEnv>;
