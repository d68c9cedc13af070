// The engine's strategies (GET /api/strategies), one list shared by the backtest and the sweep panels.

import { withApiToken } from './api-token.ts';
import type { StrategyInfo, StrategyList } from './strategies.ts';

/**
 * The engine's list, loaded once and again whenever the stream goes live (an engine started again
 * may have loaded other files). Listeners are told after every load; a failed one keeps the last list
 * and says why in `error`.
 */
export class StrategyCatalog {
  list: StrategyList | null = null;
  /** Why the last load failed (null after a success). */
  error: string | null = null;
  private readonly listeners: ((list: StrategyList | null) => void)[] = [];
  private loading: Promise<void> | null = null;

  subscribe(f: (list: StrategyList | null) => void): void {
    this.listeners.push(f);
    f(this.list);
  }

  find(name: string): StrategyInfo | null {
    return this.list?.strategies.find((s) => s.name === name) ?? null;
  }

  load(): Promise<void> {
    this.loading ??= this.fetchList().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async fetchList(): Promise<void> {
    await this.read();
    for (const f of this.listeners) f(this.list);
  }

  private async read(): Promise<void> {
    try {
      const res = await fetch('/api/strategies', withApiToken());
      if (!res.ok) {
        this.error = `GET /api/strategies: HTTP ${res.status}`;
        return;
      }
      const list = (await res.json()) as StrategyList;
      if (!Array.isArray(list.strategies)) {
        this.error = 'GET /api/strategies: unexpected answer';
        return;
      }
      this.list = list;
      this.error = null;
    } catch (e) {
      this.error = `GET /api/strategies: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
}
