// Risk alerts: severity, time, code and the figures behind them. Alerts are rare, so they are
// plain objects kept in a bounded list (the newest `capacity`), with a running total.

import type { Alert, Severity } from '../wire/live-state.ts';

// The shape is the API's (an alert is served as raised); `ts` is engine ns on the session clock.
export type { Alert, Severity } from '../wire/live-state.ts';

export class AlertLog {
  readonly items: Alert[] = [];
  total = 0;
  constructor(private readonly capacity = 200) {}

  add(ts: number, severity: Severity, code: string, message: string, value: number, limit: number): Alert {
    const a: Alert = { ts, severity, code, message, value, limit };
    this.items.push(a);
    if (this.items.length > this.capacity) this.items.shift();
    this.total++;
    return a;
  }

  /** Alerts added after the first `seen` (as many of them as the log still holds). */
  since(seen: number): Alert[] {
    const n = Math.min(this.items.length, this.total - seen);
    return n > 0 ? this.items.slice(-n) : [];
  }
}
