// The report's time axis, compressed to the sessions as TradingView draws intraday charts: one
// block per session, side by side, the nights, weekends and holidays between them left out, so a
// multi-day run is not three quarters empty night. Lines break between blocks; each block is
// labelled with its session date. Times are shown in New York time (the exchange's), labelled.

/** New York wall-clock parts of an epoch-ms instant. */
const NY = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function nyParts(ms: number): { date: string; hour: number; minute: number; second: number } {
  const p = Object.fromEntries(NY.formatToParts(ms).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second) };
}

/** "14:49:03" New York. */
export function nyTime(ms: number): string {
  const p = nyParts(ms);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}:${String(p.second).padStart(2, '0')}`;
}

/** "2024-01-02 14:49:03 ET" (with `millis`, "14:49:03.867"): an instant as people read it at the CME. */
export function nyStamp(ms: number, millis = false): string {
  const frac = millis ? `.${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}` : '';
  return `${nyParts(ms).date} ${nyTime(ms)}${frac} ET`;
}

/** The New York hour of day (0-23) of an instant. */
export function nyHour(ms: number): number {
  return nyParts(ms).hour;
}

/**
 * The CME trade date of an instant: its New York date, or the next day from 18:00 on (the
 * evening's trading belongs to the next session).
 */
export function tradeDate(ms: number): string {
  const p = nyParts(ms);
  if (p.hour < 18) return p.date;
  return new Date(Date.parse(`${p.date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

export interface SessionBlock {
  date: string;
  start: number;
  end: number;
  /** Left edge and width in axis units (0..1 over the whole axis). */
  x: number;
  w: number;
}

/** Share of the axis left blank between two sessions (the break). */
const GAP = 0.012;

export class SessionAxis {
  readonly blocks: SessionBlock[];

  /** From every instant the charts show: the sessions are their trade dates, each spanning its first to last instant. */
  constructor(instants: Iterable<number>) {
    const spans = new Map<string, [number, number]>();
    for (const t of instants) {
      if (!Number.isFinite(t)) continue;
      const d = tradeDate(t);
      const s = spans.get(d);
      if (!s) spans.set(d, [t, t]);
      else {
        if (t < s[0]) s[0] = t;
        if (t > s[1]) s[1] = t;
      }
    }
    const sorted = [...spans.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    // Width proportional to each session's length (a half day is half as wide), gaps fixed.
    const total = sorted.reduce((n, [, [a, b]]) => n + Math.max(b - a, 1), 0);
    const room = 1 - GAP * Math.max(0, sorted.length - 1);
    let x = 0;
    this.blocks = sorted.map(([date, [start, end]]) => {
      const w = (room * Math.max(end - start, 1)) / total;
      const b = { date, start, end, x, w };
      x += w + GAP;
      return b;
    });
  }

  /** The block an instant falls in (the nearest one before it when between sessions), or -1 with none. */
  blockOf(t: number): number {
    let i = this.blocks.length - 1;
    while (i > 0 && t < this.blocks[i].start) i--;
    return this.blocks.length ? i : -1;
  }

  /** Axis position (0..1) of an instant. */
  pos(t: number): number {
    const i = this.blockOf(t);
    if (i < 0) return 0;
    const b = this.blocks[i];
    const f = b.end > b.start ? Math.min(1, Math.max(0, (t - b.start) / (b.end - b.start))) : 0.5;
    return b.x + f * b.w;
  }
}
