// Charts of the HTML report as inline SVG: no script, no network, the same bytes for the same
// run, and drawable by anything that opens HTML. Long series are reduced to at most
// MAX_POINTS per series by keeping each bucket's first, lowest, highest and last point, so a
// spike or a drawdown trough stays on the chart however long the run.

import { type SessionAxis, nyTime } from './session-axis.ts';

export const MAX_POINTS = 2000;
/** Fill markers kept per series: more would bury the other side's and the quotes (19k sells did). */
export const MAX_DOTS = 400;
const W = 960;
const H = 260;
const PAD = { l: 96, r: 12, t: 12, b: 28 };

export type Point = [x: number, y: number];
export interface Series {
  name: string;
  color: string;
  points: Point[];
  /** 'line' (default), 'step' (held until the next point) or 'dots'. */
  style?: 'line' | 'step' | 'dots';
}
export interface Marker {
  x: number;
  label: string;
  color: string;
}

/** At most `max` points: per bucket of consecutive points, the first, min, max and last. */
export function downsample(points: Point[], max = MAX_POINTS): Point[] {
  if (points.length <= max) return points;
  const per = Math.ceil(points.length / Math.floor(max / 4));
  const out: Point[] = [];
  for (let i = 0; i < points.length; i += per) {
    const b = points.slice(i, i + per);
    let lo = b[0];
    let hi = b[0];
    for (const p of b) {
      if (p[1] < lo[1]) lo = p;
      if (p[1] > hi[1]) hi = p;
    }
    const keep = new Set([b[0], lo, hi, b[b.length - 1]]);
    for (const p of b) if (keep.has(p)) out.push(p);
  }
  return out;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f2 = (x: number) => (Math.round(x * 100) / 100).toString();

function extent(xs: number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (lo === Infinity) return [0, 1];
  return lo === hi ? [lo - 1, hi + 1] : [lo, hi];
}

/**
 * Axis ticks at "nice" values, steps of 1, 2 or 5 times a power of ten (whole numbers only with
 * `integer`, for contracts), covering lo..hi; about `target` of them.
 */
export function niceTicks(lo: number, hi: number, target = 5, integer = false): number[] {
  if (!(hi > lo)) [lo, hi] = [lo - 1, hi + 1];
  const raw = (hi - lo) / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw) ?? 10 * mag;
  if (integer) step = Math.max(1, Math.round(step));
  const first = Math.floor(lo / step);
  const last = Math.ceil(hi / step);
  const out: number[] = [];
  // Multiples of the step, rounded to its decimals so 0.1 * 3 reads 0.3.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  for (let k = first; k <= last; k++) out.push(Number((k * step).toFixed(decimals)));
  return out;
}

/**
 * A chart over time on the session-compressed axis (shared by every time chart of the report):
 * a block per session, a break in every line between sessions, the session's date under its
 * block and its first and last New York time at its edges. `integer`: whole-number y ticks.
 */
export function timeChart(
  id: string,
  title: string,
  series: Series[],
  opts: { yFormat: (y: number) => string; axis: SessionAxis; markers?: Marker[]; integer?: boolean },
): string {
  const shown = series
    .filter((s) => s.points.length > 0)
    .map((s) => ({ ...s, total: s.points.length, points: downsample(s.points, s.style === 'dots' ? MAX_DOTS : MAX_POINTS) }));
  const all = shown.flatMap((s) => s.points);
  const [lo, hi] = extent(all.map((p) => p[1]));
  const ticks = niceTicks(lo, hi, 5, opts.integer);
  const [y0, y1] = [ticks[0], ticks[ticks.length - 1]];
  const axis = opts.axis;
  const sx = (x: number) => PAD.l + axis.pos(x) * (W - PAD.l - PAD.r);
  const sy = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);
  const parts: string[] = axis.blocks.map(
    (b) =>
      `<rect class="session" data-session="${b.date}" x="${f2(PAD.l + b.x * (W - PAD.l - PAD.r))}" y="${PAD.t}" ` +
      `width="${f2(b.w * (W - PAD.l - PAD.r))}" height="${H - PAD.t - PAD.b}"/>`,
  );
  for (const y of ticks) {
    parts.push(
      `<line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${f2(sy(y))}" y2="${f2(sy(y))}"/><text class="ytick" x="${PAD.l - 4}" ` +
        `y="${f2(sy(y) + 4)}" text-anchor="end" data-tick="${y}">${esc(opts.yFormat(y))}</text>`,
    );
  }
  // One block per session: its date in the middle, New York times at its edges when there is room.
  const every = Math.max(1, Math.ceil(axis.blocks.length / 12));
  axis.blocks.forEach((b, i) => {
    const x0 = PAD.l + b.x * (W - PAD.l - PAD.r);
    const bw = b.w * (W - PAD.l - PAD.r);
    if (i % every === 0) parts.push(`<text class="session-date" x="${f2(x0 + bw / 2)}" y="${H - 4}" text-anchor="middle">${b.date}</text>`);
    if (bw > 150)
      parts.push(
        `<text x="${f2(x0 + 2)}" y="${H - PAD.b + 12}">${nyTime(b.start).slice(0, 5)} ET</text><text x="${f2(x0 + bw - 2)}" ` +
          `y="${H - PAD.b + 12}" text-anchor="end">${nyTime(b.end).slice(0, 5)}</text>`,
      );
  });
  for (const m of opts.markers ?? []) {
    const x = f2(sx(m.x));
    parts.push(`<line class="marker" x1="${x}" x2="${x}" y1="${PAD.t}" y2="${H - PAD.b}" stroke="${m.color}"><title>${esc(m.label)}</title></line>`);
  }
  for (const s of shown) {
    if (s.style === 'dots') {
      // One path of zero-length segments drawn with round caps: a dot per point, one DOM node.
      const d = s.points.map((p) => `M${f2(sx(p[0]))} ${f2(sy(p[1]))}h0`).join('');
      parts.push(
        `<path class="series dots" data-series="${esc(s.name)}" data-points="${s.points.length}" data-total="${s.total}" d="${d}" stroke="${s.color}"/>`,
      );
      continue;
    }
    // A new subpath at each session: no line drawn across the night.
    let d = '';
    let block = -2;
    for (const [x, y] of s.points) {
      const b = axis.blockOf(x);
      if (b !== block) d += `M${f2(sx(x))} ${f2(sy(y))}`;
      else d += s.style === 'step' ? `H${f2(sx(x))}V${f2(sy(y))}` : `L${f2(sx(x))} ${f2(sy(y))}`;
      block = b;
    }
    parts.push(`<path class="series" data-series="${esc(s.name)}" data-points="${s.points.length}" d="${d}" stroke="${s.color}"/>`);
  }
  // Legend: only the series with points; a thinned marker series says how many it shows.
  const count = (n: number): string => n.toLocaleString('en-US');
  const legend = shown
    .map((s) => {
      const thinned = s.style === 'dots' && s.points.length < s.total ? ` (${count(s.points.length)} of ${count(s.total)} shown)` : '';
      return `<span style="color:${s.color}">■ ${esc(s.name)}${thinned}</span>`;
    })
    .join(' ');
  return (
    `<figure id="${esc(id)}"><figcaption>${esc(title)} ${legend}</figcaption><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" ` +
    `aria-label="${esc(title)}">${parts.join('')}</svg></figure>`
  );
}

export interface BarGroup {
  label: string;
  /** One value per bar name (null: nothing measured). */
  values: (number | null)[];
}

/** Grouped vertical bars around zero (markouts by horizon). */
export function barChart(
  id: string,
  title: string,
  names: { name: string; color: string }[],
  groups: BarGroup[],
  yFormat: (y: number) => string,
  integer = false,
): string {
  const vals = groups.flatMap((g) => g.values.filter((v): v is number => v !== null));
  const [vlo, vhi] = extent([0, ...vals]);
  const ticks = niceTicks(vlo, vhi, 5, integer);
  const [lo, hi] = [ticks[0], ticks[ticks.length - 1]];
  const sy = (y: number) => H - PAD.b - ((y - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const gw = (W - PAD.l - PAD.r) / Math.max(1, groups.length);
  const bw = (gw * 0.7) / Math.max(1, names.length);
  const parts = [`<line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${f2(sy(0))}" y2="${f2(sy(0))}"/>`];
  for (const y of ticks) parts.push(`<text class="ytick" x="${PAD.l - 4}" y="${f2(sy(y) + 4)}" text-anchor="end" data-tick="${y}">${esc(yFormat(y))}</text>`);
  // At most ~24 group labels (histograms have more bins).
  const every = Math.max(1, Math.ceil(groups.length / 24));
  groups.forEach((g, gi) => {
    const gx = PAD.l + gi * gw + gw * 0.15;
    if (gi % every === 0) parts.push(`<text x="${f2(gx + gw * 0.35)}" y="${H - 8}" text-anchor="middle">${esc(g.label)}</text>`);
    g.values.forEach((v, bi) => {
      if (v === null) return;
      const y = Math.min(sy(v), sy(0));
      const h = Math.max(Math.abs(sy(v) - sy(0)), 1);
      parts.push(
        `<path class="series bar" data-series="${esc(names[bi].name)}" data-group="${esc(g.label)}" data-value="${v}" ` +
          `style="fill:${names[bi].color}" d="M${f2(gx + bi * bw)} ` +
          `${f2(y)}h${f2(bw - 2)}v${f2(h)}h${f2(-(bw - 2))}Z"><title>${esc(`${names[bi].name} ${g.label}: ${yFormat(v)}`)}</title></path>`,
      );
    });
  });
  // A bar name with no value anywhere gets no legend entry.
  const legend = names
    .filter((_, bi) => groups.some((g) => g.values[bi] !== null))
    .map((s) => `<span style="color:${s.color}">■ ${esc(s.name)}</span>`)
    .join(' ');
  return (
    `<figure id="${esc(id)}"><figcaption>${esc(title)} ${legend}</figcaption><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" ` +
    `aria-label="${esc(title)}">${parts.join('')}</svg></figure>`
  );
}

export { esc };
