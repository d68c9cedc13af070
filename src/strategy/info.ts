// A registered strategy as the API and the CLI describe it.

import type { StrategyInfo } from '../wire/strategies.ts';
import { paramsJsonSchema } from './params.ts';
import { type Registered, registeredStrategies } from './registry.ts';

export function strategyInfo(r: Registered): StrategyInfo {
  const d = r.def;
  return {
    name: d.name,
    version: d.version,
    hash: r.hash,
    builtin: r.file === null,
    description: d.description,
    wakes: d.wakes,
    book: d.book ?? 'touch',
    features: d.features ?? 'volatility',
    levels: d.levels ?? 1,
    params: paramsJsonSchema(d.params),
  };
}

export function strategyInfos(): StrategyInfo[] {
  return registeredStrategies()
    .map(strategyInfo)
    .sort((a, b) => a.name.localeCompare(b.name));
}
