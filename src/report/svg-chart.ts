// Charts of the HTML report as inline SVG: no script, no network, the same bytes for the same
// run, and drawable by anything that opens HTML. Long series are reduced to at most
// MAX_POINTS per series by keeping each bucket's first, lowest, highest and last point, so a
// spike or a drawdown trough stays on the chart however long the run.

export const MAX_POINTS = 2000;
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

/** A chart over epoch-ms x (`xRange`: the run's span, shared by every chart); `yFormat` labels the y axis. */
export function timeChart(id: string, title: string, series: Series[], opts: { yFormat: (y: number) => string; xRange: [number, number]; markers?: Marker[] }): string {
  const shown = series.map((s) => ({ ...s, points: downsample(s.points) }));
  const all = shown.flatMap((s) => s.points);
  const [x0, x1] = opts.xRange[0] < opts.xRange[1] ? opts.xRange : extent(all.map((p) => p[0]));
  const [y0, y1] = extent(all.map((p) => p[1]));
  const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
  const sy = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);
  const parts: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const y = y0 + ((y1 - y0) * k) / 4;
    parts.push(`<line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${f2(sy(y))}" y2="${f2(sy(y))}"/><text x="${PAD.l - 4}" y="${f2(sy(y) + 4)}" text-anchor="end">${esc(opts.yFormat(y))}</text>`);
  }
  const iso = (x: number) => new Date(x).toISOString().slice(0, 16).replace('T', ' ');
  parts.push(`<text x="${PAD.l}" y="${H - 8}">${iso(x0)} UTC</text><text x="${W - PAD.r}" y="${H - 8}" text-anchor="end">${iso(x1)} UTC</text>`);
  for (const m of opts.markers ?? []) {
    const x = f2(sx(m.x));
    parts.push(`<line class="marker" x1="${x}" x2="${x}" y1="${PAD.t}" y2="${H - PAD.b}" stroke="${m.color}"><title>${esc(m.label)}</title></line>`);
  }
  for (const s of shown) {
    if (s.points.length === 0) continue;
    if (s.style === 'dots') {
      // One path of zero-length segments drawn with round caps: a dot per point, one DOM node.
      const d = s.points.map((p) => `M${f2(sx(p[0]))} ${f2(sy(p[1]))}h0`).join('');
      parts.push(`<path class="series dots" data-series="${esc(s.name)}" data-points="${s.points.length}" d="${d}" stroke="${s.color}"/>`);
      continue;
    }
    let d = `M${f2(sx(s.points[0][0]))} ${f2(sy(s.points[0][1]))}`;
    for (let i = 1; i < s.points.length; i++) {
      const [x, y] = s.points[i];
      d += s.style === 'step' ? `H${f2(sx(x))}V${f2(sy(y))}` : `L${f2(sx(x))} ${f2(sy(y))}`;
    }
    parts.push(`<path class="series" data-series="${esc(s.name)}" data-points="${s.points.length}" d="${d}" stroke="${s.color}"/>`);
  }
  const legend = shown.map((s) => `<span style="color:${s.color}">■ ${esc(s.name)}</span>`).join(' ');
  return `<figure id="${esc(id)}"><figcaption>${esc(title)} ${legend}</figcaption><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg></figure>`;
}

export interface BarGroup {
  label: string;
  /** One value per bar name (null: nothing measured). */
  values: (number | null)[];
}

/** Grouped vertical bars around zero (markouts by horizon). */
export function barChart(id: string, title: string, names: { name: string; color: string }[], groups: BarGroup[], yFormat: (y: number) => string): string {
  const vals = groups.flatMap((g) => g.values.filter((v): v is number => v !== null));
  const [lo, hi] = extent([0, ...vals]);
  const sy = (y: number) => H - PAD.b - ((y - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const gw = (W - PAD.l - PAD.r) / Math.max(1, groups.length);
  const bw = (gw * 0.7) / Math.max(1, names.length);
  const parts = [`<line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${f2(sy(0))}" y2="${f2(sy(0))}"/>`];
  for (let k = 0; k <= 4; k++) {
    const y = lo + ((hi - lo) * k) / 4;
    parts.push(`<text x="${PAD.l - 4}" y="${f2(sy(y) + 4)}" text-anchor="end">${esc(yFormat(y))}</text>`);
  }
  groups.forEach((g, gi) => {
    const gx = PAD.l + gi * gw + gw * 0.15;
    parts.push(`<text x="${f2(gx + gw * 0.35)}" y="${H - 8}" text-anchor="middle">${esc(g.label)}</text>`);
    g.values.forEach((v, bi) => {
      if (v === null) return;
      const y = Math.min(sy(v), sy(0));
      const h = Math.max(Math.abs(sy(v) - sy(0)), 1);
      parts.push(
        `<path class="series bar" data-series="${esc(names[bi].name)}" data-group="${esc(g.label)}" data-value="${v}" style="fill:${names[bi].color}" d="M${f2(gx + bi * bw)} ${f2(y)}h${f2(bw - 2)}v${f2(h)}h${f2(-(bw - 2))}Z"><title>${esc(`${names[bi].name} ${g.label}: ${yFormat(v)}`)}</title></path>`,
      );
    });
  });
  const legend = names.map((s) => `<span style="color:${s.color}">■ ${esc(s.name)}</span>`).join(' ');
  return `<figure id="${esc(id)}"><figcaption>${esc(title)} ${legend}</figcaption><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg></figure>`;
}

export { esc };
