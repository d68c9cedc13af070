// Risk and position against their limits (SymbolState.risk and .position): net position on a
// centre-zero bar against the position limit, drawdown and daily loss against theirs (the
// engine's utilisation fractions), the kill switch, and the alerts (newest first).

import type { AlertView, SymbolState } from '../shared/api.ts';
import { el, setClass, setText } from './dom.ts';
import { fmtFracPct, fmtInt, fmtNyTime, fmtPct, fmtSignedInt, fmtUsd0 } from './format.ts';

interface Meter {
  row: HTMLElement;
  fill: HTMLElement;
  value: HTMLElement;
  util: HTMLElement;
}

const level = (u: number): string => (u >= 0.8 ? 'crit' : u >= 0.5 ? 'warn' : 'ok');

export class RiskView {
  private readonly position: Meter;
  private readonly drawdown: Meter;
  private readonly dailyLoss: Meter;
  private readonly kill: HTMLElement;
  private readonly limits: HTMLElement;
  private readonly alerts: HTMLElement;
  private readonly alertsHead: HTMLElement;
  private alertsSig = '';

  constructor(container: HTMLElement) {
    const meter = (label: string, centred: boolean): Meter => {
      const row = el('div', 'meter');
      row.append(el('span', 'meter-label', label));
      const bar = el('div', `bar${centred ? ' centred' : ''}`);
      const fill = el('div', 'fill');
      bar.append(fill);
      const value = el('span', 'num meter-value');
      const util = el('span', 'num meter-util');
      row.append(bar, value, util);
      container.append(row);
      return { row, fill, value, util };
    };
    this.kill = el('div', 'kill');
    container.append(this.kill);
    this.position = meter('Position', true);
    this.drawdown = meter('Drawdown', false);
    this.dailyLoss = meter('Daily loss', false);
    this.limits = el('div', 'limits');
    container.append(this.limits);
    this.alertsHead = el('div', 'alerts-head', 'Alerts');
    this.alerts = el('ol', 'alerts');
    container.append(this.alertsHead, this.alerts);
  }

  render(st: SymbolState | null): void {
    if (!st) return;
    const r = st.risk;
    const p = st.position;

    const posU = r.utilisation.position;
    this.setMeter(this.position, posU, `${fmtSignedInt(p.contracts)} / ${fmtInt(r.limits.position_limit)}`);
    // Centre-zero bar: long grows right, short grows left.
    const half = Math.min(1, posU) * 50;
    this.position.fill.style.left = p.contracts >= 0 ? '50%' : `${50 - half}%`;
    this.position.fill.style.width = `${half}%`;

    this.setMeter(this.drawdown, r.utilisation.drawdown, `${fmtPct(p.drawdown_pct, 3)} / ${fmtPct(r.limits.max_drawdown_pct, 2)}`);
    this.drawdown.fill.style.width = `${Math.min(1, r.utilisation.drawdown) * 100}%`;
    const loss = Math.max(0, -p.daily_pnl);
    this.setMeter(this.dailyLoss, r.utilisation.daily_loss, `$${fmtUsd0(loss)} / $${fmtUsd0(r.limits.max_daily_loss)}`);
    this.dailyLoss.fill.style.width = `${Math.min(1, r.utilisation.daily_loss) * 100}%`;

    const ks = r.kill_switch;
    if (ks.active) {
      setText(this.kill, `KILL SWITCH TRIPPED · ${ks.reason ?? 'unknown reason'}${ks.time ? ` · ${fmtNyTime(Date.parse(ks.time))}` : ''} · quoting stopped`);
      setClass(this.kill, 'kill tripped');
    } else if (!r.limits.kill_switch_enabled) {
      setText(this.kill, 'Kill switch disabled (limits only alert)');
      setClass(this.kill, 'kill disabled');
    } else {
      setText(this.kill, 'Kill switch armed · quoting');
      setClass(this.kill, 'kill armed');
    }
    setText(
      this.limits,
      `max order ${fmtInt(r.limits.max_order_size)} · position limit ${fmtInt(r.limits.position_limit)} · max drawdown ` +
        `${fmtPct(r.limits.max_drawdown_pct, 2)} of peak · max daily loss $${fmtUsd0(r.limits.max_daily_loss)}`,
    );

    const last = r.alerts[r.alerts.length - 1];
    const sig = `${st.symbol}|${r.alerts.length}|${last ? `${last.time}${last.code}` : ''}`;
    if (sig !== this.alertsSig) {
      this.alertsSig = sig;
      this.renderAlerts(r.alerts);
    }
  }

  private setMeter(m: Meter, u: number, value: string): void {
    setText(m.value, value);
    setText(m.util, fmtFracPct(u, 0));
    setClass(m.row, `meter ${level(u)}`);
  }

  private renderAlerts(alerts: readonly AlertView[]): void {
    const items: HTMLElement[] = [];
    for (let i = alerts.length - 1; i >= 0; i--) {
      const a = alerts[i];
      const li = el('li', `alert ${a.severity}`);
      li.append(
        el('span', 'num t', fmtNyTime(Date.parse(a.time))),
        el('span', 'sev', a.severity.toUpperCase()),
        el('span', 'code', a.code),
        el('span', 'msg', a.message),
      );
      li.title = `value ${a.value} · limit ${a.limit}`;
      items.push(li);
    }
    if (!items.length) items.push(el('li', 'empty', 'no alerts'));
    this.alerts.replaceChildren(...items);
    setText(this.alertsHead, `Alerts (${alerts.length})`);
  }
}
