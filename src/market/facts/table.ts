// The facts as a markdown table for people (rounded; n/a where the source cannot give a fact),
// one column per session, and as JSON with full precision (NaN -> null).

import { FACTS, type SessionFacts } from './facts.ts';

/** A column: a session's facts, and optionally the same session over other seeds (shown as a range). */
export interface FactsColumn {
  session: SessionFacts;
  seedRuns?: SessionFacts[];
}

/** HH:MM New York time of ns after midnight (a replay's evening starts the day before). */
function clock(ns: number): string {
  if (ns < 0) return `${clock(ns + 86_400e9)} (day before)`;
  const min = Math.round(ns / 60e9);
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

/** Column heading: the source, the trade date and the window (New York time). */
export function columnTitle(s: SessionFacts): string {
  return `${s.source} ${s.kind === 'synthetic' ? '' : `(${s.kind}, ${s.symbol}) `}${s.date} ${clock(s.startNs)}–${clock(s.endNs)}`;
}

export function factsTable(columns: readonly FactsColumn[]): string {
  const lines = [`| stylized fact | ${columns.map((c) => columnTitle(c.session)).join(' | ')} |`, `|---|${columns.map(() => '---|').join('')}`];
  for (const f of FACTS) {
    const u = f.unit === '%' || f.unit === '×' ? f.unit : f.unit ? ` ${f.unit}` : '';
    const show = (x: number): string => (Number.isFinite(x) ? (x * f.scale).toFixed(f.digits) : 'n/a');
    const cells = columns.map((c) => {
      const v = c.session.facts[f.key];
      let cell = Number.isFinite(v) ? `${show(v)}${u}` : 'n/a';
      if (c.seedRuns && c.seedRuns.length > 0) {
        const vs = c.seedRuns.map((r) => r.facts[f.key]);
        cell += vs.every(Number.isFinite) ? ` (${show(Math.min(...vs))}–${show(Math.max(...vs))}${u})` : ' (n/a)';
      }
      return cell;
    });
    lines.push(`| ${f.label} | ${cells.join(' | ')} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** Full precision; a fact the source cannot give is null. */
export function factsJson(columns: readonly FactsColumn[]): string {
  const plain = (s: SessionFacts) => ({ ...s, facts: Object.fromEntries(FACTS.map((f) => [f.key, Number.isFinite(s.facts[f.key]) ? s.facts[f.key] : null])) });
  const sessions = columns.map((c) => ({ ...plain(c.session), ...(c.seedRuns ? { seed_runs: c.seedRuns.map(plain) } : {}) }));
  return `${JSON.stringify({ sessions }, null, 2)}\n`;
}
