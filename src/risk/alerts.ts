// Risk alerts: severity, time, code and the figures behind them. Alerts are rare, so they are
// plain objects kept in a bounded list (the newest `capacity`), with a running total.

export type Severity = 'info' | 'warning' | 'critical';

export interface Alert {
  ts: number; // engine ns (session clock)
  severity: Severity;
  code: string; // e.g. KILL_SWITCH, DRAWDOWN_WARNING
  message: string;
  value: number;
  limit: number;
}

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
