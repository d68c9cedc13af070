// GET /api/strategies: the strategies this engine loaded (built-ins and files named at start).

import type { StrategyList } from '../../wire/strategies.ts';
import { strategyInfos } from '../../strategy/info.ts';
import type { ApiContext } from '../context.ts';
import type { App } from '../app-env.ts';

export function registerStrategies(app: App, ctx: ApiContext): void {
  app.get('/api/strategies', (c) => {
    const body: StrategyList = { default: ctx.config.strategy.name, strategies: strategyInfos() };
    return c.json(body, 200, { 'Cache-Control': 'no-store' });
  });
}
