// The estimators of calibration (docs/calibration.md): each maps what measure.ts counted to one
// parameter of the generator's model (generator.ts), by the method of moments on the model's own
// equations. A parameter the measurements cannot identify keeps the base profile's value and is
// listed as kept, never guessed.

import { MAX_DEPTH } from '../generator.ts';
import type { FlowExtra } from '../profile-file.ts';
import type { MarketProfile } from '../market-profile.ts';
import { type CalibrationMeter, FANO_LONG_NS, FANO_SHORT_NS, fanoFactor, type MinuteRow, type SizeTally } from './measure.ts';

const NS = 1e9;
const RTH_OPEN_NS = 9.5 * 3600 * NS;
const RTH_CLOSE_NS = 16 * 3600 * NS;
/** Seconds in a year of regular sessions: annualVol = sigma (ticks/sqrt(s)) x sqrt(this) / price (ticks). */
const YEAR_S = 252 * 23400;

export interface Calibration {
  profile: MarketProfile;
  extra: FlowExtra;
  /** Each fitted key and how (one line). */
  fitted: Record<string, string>;
  /** Keys kept from the base profile, and why. */
  kept: Record<string, string>;
  /** What went in: sessions, seconds, events. */
  inputs: { sessions: number; seconds: number; flowEvents: number; marketOrders: number; gaps: number; mbo: boolean };
}

// ---- the intraday activity profile ----

export interface ActivityShape {
  openBoost: number;
  openDecayS: number;
  closeBoost: number;
  closeDecayS: number;
}

const RTH_S = (RTH_CLOSE_NS - RTH_OPEN_NS) / NS;
const meanBoost = (boost: number, decayS: number): number => boost * (decayS / RTH_S) * (1 - Math.exp(-RTH_S / decayS));
const sinceOpenS = (tod: number): number => Math.abs(tod - RTH_OPEN_NS) / NS;
const toCloseS = (tod: number): number => Math.abs(RTH_CLOSE_NS - tod) / NS;

/** The generator's U-shape at time of day tod (ns): mean 1 over 09:30-16:00. It scales the variance rate and the order flow. */
export function activityAt(s: ActivityShape, tod: number): number {
  const u = 1 + s.openBoost * Math.exp(-sinceOpenS(tod) / s.openDecayS) + s.closeBoost * Math.exp(-toCloseS(tod) / s.closeDecayS);
  return u / (1 + meanBoost(s.openBoost, s.openDecayS) + meanBoost(s.closeBoost, s.closeDecayS));
}

/**
 * The order-flow structure's spikes at the open and the close (order flow only, mean 1 over the
 * session), when the profile has them (the flow structure's openSpikeBoost, openSpikeDecayS,
 * closeSpikeBoost, closeSpikeDecayS; the boosts fitted by fitSpikes, the decay times the base's); 1 without them.
 */
export function spikeAt(p: object, tod: number): number {
  const v = p as Record<string, number | undefined>;
  const oB = v.openSpikeBoost ?? 0;
  const cB = v.closeSpikeBoost ?? 0;
  if (oB === 0 && cB === 0) return 1;
  const oD = v.openSpikeDecayS ?? 60;
  const cD = v.closeSpikeDecayS ?? 60;
  return (1 + oB * Math.exp(-sinceOpenS(tod) / oD) + cB * Math.exp(-toCloseS(tod) / cD)) / (1 + meanBoost(oB, oD) + meanBoost(cB, cD));
}

/** The mean of f over the minute around tod (the generator updates the activity every second). */
function overMinute(tod: number, f: (t: number) => number): number {
  let sum = 0;
  for (let i = 0; i < 60; i++) sum += f(tod + (i - 29.5) * NS);
  return sum / 60;
}

/** Minutes pooled by time of day (several sessions of one window add up). */
function byTimeOfDay(rows: readonly MinuteRow[]): { tod: number; n: number; s: number }[] {
  const m = new Map<number, { tod: number; n: number; s: number }>();
  for (const r of rows) {
    if (r.seconds <= 0) continue;
    const key = Math.round(r.todNs / 60e9);
    const e = m.get(key) ?? { tod: r.todNs, n: 0, s: 0 };
    e.n += r.flowEvents;
    e.s += r.seconds;
    m.set(key, e);
  }
  return [...m.values()].sort((a, b) => a.tod - b.tod);
}

/** Is the open (close) part of the U-shape seen: minutes within 5 min of it and spanning 20 min away from it. */
function covers(points: readonly { tod: number }[], at: number): boolean {
  return span(points, at) >= 20 * 60 && Math.min(...points.map((p) => Math.abs(p.tod - at) / 60e9)) <= 5;
}

/** Seconds the minutes span away from `at`: a decay time much longer than this is not seen (the level takes it). */
function span(points: readonly { tod: number }[], at: number): number {
  const d = points.map((p) => Math.abs(p.tod - at) / NS);
  return d.length === 0 ? 0 : Math.max(...d) - Math.min(...d);
}

/** The span (s) of minutes away from the open (close) from which its decay time is fitted. */
export const DECAY_SPAN_S = 90 * 60;

/** Boosts above this are a level the window cannot tell from a decay (a fit that ran off). */
export const MAX_BOOST = 50;

/**
 * Fits the open and close boosts and decay times to the flow events per minute: events/s =
 * level x spike(t) x (1 + openBoost e^(-|t - 09:30|/openDecay) + closeBoost e^(-|16:00 - t|/closeDecay)),
 * weighted least squares (Poisson weights) linear in (level, level x boost) for each pair of decay
 * times on a grid; a part of the day the window does not cover keeps the base's values, and the
 * flow structure's spikes (if any) are the base's.
 */
export function fitActivity(
  rows: readonly MinuteRow[],
  base: ActivityShape,
): { shape: ActivityShape; open: boolean; close: boolean; openDecay: boolean; closeDecay: boolean } {
  const pts = byTimeOfDay(rows);
  return fitShape(pts, base, covers(pts, RTH_OPEN_NS), covers(pts, RTH_CLOSE_NS));
}

/** fitActivity on minutes pooled by time of day, the open (close) part fitted when `open` (`close`). */
function fitShape(
  pts: readonly { tod: number; n: number; s: number }[],
  base: ActivityShape,
  open: boolean,
  close: boolean,
): { shape: ActivityShape; open: boolean; close: boolean; openDecay: boolean; closeDecay: boolean } {
  // Over a shorter span a long decay and a higher level look alike (and the level is the rates'):
  // the decay time is fitted only from DECAY_SPAN_S on, up to that span; else it is the base's.
  const openMax = span(pts, RTH_OPEN_NS);
  const closeMax = span(pts, RTH_CLOSE_NS);
  const openDecay = open && openMax >= DECAY_SPAN_S;
  const closeDecay = close && closeMax >= DECAY_SPAN_S;
  if (!open && !close) return { shape: { ...base }, open, close, openDecay, closeDecay };
  const grid: number[] = [];
  for (let x = Math.log(30); x <= Math.log(7200) + 1e-9; x += Math.log(7200 / 30) / 80) grid.push(Math.exp(x));
  const openGrid = openDecay ? grid.filter((D) => D <= openMax) : [base.openDecayS];
  const closeGrid = closeDecay ? grid.filter((D) => D <= closeMax) : [base.closeDecayS];
  // Per minute: the spike alone, and spike x each decay's exponential, averaged over the minute.
  const column = (at: (t: number) => number, D: number): number[] => pts.map((p) => overMinute(p.tod, (t) => spikeAt(base, t) * Math.exp(-at(t) / D)));
  const spikeOnly = pts.map((p) => overMinute(p.tod, (t) => spikeAt(base, t)));
  const openCols = open ? openGrid.map((D) => column(sinceOpenS, D)) : [];
  const closeCols = close ? closeGrid.map((D) => column(toCloseS, D)) : [];
  // A part of the shape that is kept is a known multiple of the level: folded into the first column.
  const keptOpen = open ? null : column(sinceOpenS, base.openDecayS);
  const keptClose = close ? null : column(toCloseS, base.closeDecayS);
  const first = pts.map((_, m) => spikeOnly[m] + (keptOpen ? base.openBoost * keptOpen[m] : 0) + (keptClose ? base.closeBoost * keptClose[m] : 0));
  let best = { sse: Infinity, shape: { ...base } };
  for (let gi = 0; gi < (open ? openGrid.length : 1); gi++) {
    for (let gj = 0; gj < (close ? closeGrid.length : 1); gj++) {
      const cols = (m: number): number[] => {
        const c = [first[m]];
        if (open) c.push(openCols[gi][m]);
        if (close) c.push(closeCols[gj][m]);
        return c;
      };
      const k = 1 + (open ? 1 : 0) + (close ? 1 : 0);
      const A = Array.from({ length: k }, () => new Array<number>(k).fill(0));
      const b = new Array<number>(k).fill(0);
      pts.forEach((p, m) => {
        const c = cols(m);
        const y = p.n / p.s;
        const w = (p.s * p.s) / Math.max(1, p.n);
        for (let i = 0; i < k; i++) {
          b[i] += w * c[i] * y;
          for (let j = 0; j < k; j++) A[i][j] += w * c[i] * c[j];
        }
      });
      const x = solve(A, b);
      if (x === null || !(x[0] > 0) || x.some((v) => v < 0) || x.some((v, i) => i > 0 && v / x[0] > MAX_BOOST)) continue;
      let sse = 0;
      pts.forEach((p, m) => {
        const c = cols(m);
        let f = 0;
        for (let i = 0; i < k; i++) f += x[i] * c[i];
        sse += ((p.n / p.s - f) ** 2 * (p.s * p.s)) / Math.max(1, p.n);
      });
      if (sse < best.sse) {
        let i = 1;
        const shape = { ...base };
        if (open) {
          shape.openBoost = x[i++] / x[0];
          shape.openDecayS = openGrid[gi];
        }
        if (close) {
          shape.closeBoost = x[i++] / x[0];
          shape.closeDecayS = closeGrid[gj];
        }
        best = { sse, shape };
      }
    }
  }
  return { shape: best.shape, open, close, openDecay, closeDecay };
}

/** A spike is fitted from the minutes within this many of its decay times of the open (close). */
export const SPIKE_SPAN = 4;

/**
 * The open and close spikes' boosts (decay times: the base's), each when the window holds the
 * edge's first (last) minute and the U-shape's part there. The spikes multiply the order flow
 * but not the variance rate, so a spike the fit lacked would be read as a steeper U-shape, and
 * the volatility estimate, which divides by the U-shape, would come out low (docs/calibration.md).
 * First the U-shape is fitted without the minutes within SPIKE_SPAN decay times of the edge
 * (where the spike is a constant, folded into the level); then the boost is the weighted least
 * squares fit (Poisson weights) of those minutes' excess over that U-shape: events/s = level x
 * U(t) x (1 + boost x e^(-t/decay)), averaged over the minute. Null for an edge not fitted.
 */
export function fitSpikes(rows: readonly MinuteRow[], base: ActivityShape): { open: number | null; close: number | null } {
  const pts = byTimeOfDay(rows);
  const v = base as unknown as Record<string, number | undefined>;
  const oD = v.openSpikeDecayS ?? 60;
  const cD = v.closeSpikeDecayS ?? 60;
  const near = (p: { tod: number }, at: number, d: number): boolean => Math.abs(p.tod - at) / NS < SPIKE_SPAN * d;
  const edge = (at: number): boolean => covers(pts, at) && Math.min(...pts.map((p) => Math.abs(p.tod - at) / NS)) <= 60;
  const open = edge(RTH_OPEN_NS);
  const close = edge(RTH_CLOSE_NS);
  if (!open && !close) return { open: null, close: null };
  const far = pts.filter((p) => !(open && near(p, RTH_OPEN_NS, oD)) && !(close && near(p, RTH_CLOSE_NS, cD)));
  const flat = { ...base, openSpikeBoost: 0, closeSpikeBoost: 0 };
  const u = fitShape(far, flat, covers(pts, RTH_OPEN_NS), covers(pts, RTH_CLOSE_NS)).shape;
  const f = (p: { tod: number }): number => overMinute(p.tod, (t) => activityAt(u, t));
  // The level over the far minutes (Poisson weights), then each spike's excess over it.
  let fy = 0;
  let ff = 0;
  for (const p of far) {
    const w = (p.s * p.s) / Math.max(1, p.n);
    fy += w * f(p) * (p.n / p.s);
    ff += w * f(p) * f(p);
  }
  if (!(ff > 0)) return { open: null, close: null };
  const level = fy / ff;
  const boost = (at: (t: number) => number, d: number, isNear: (p: { tod: number }) => boolean): number => {
    let xy = 0;
    let xx = 0;
    for (const p of pts) {
      if (!isNear(p)) continue;
      const x = level * f(p) * overMinute(p.tod, (t) => Math.exp(-at(t) / d));
      const w = (p.s * p.s) / Math.max(1, p.n);
      xy += w * x * (p.n / p.s - level * f(p));
      xx += w * x * x;
    }
    return xx > 0 ? Math.min(MAX_BOOST, Math.max(0, xy / xx)) : 0;
  };
  return {
    open: open ? boost(sinceOpenS, oD, (p) => near(p, RTH_OPEN_NS, oD)) : null,
    close: close ? boost(toCloseS, cD, (p) => near(p, RTH_CLOSE_NS, cD)) : null,
  };
}

/** Gaussian elimination with partial pivoting; null when singular. */
function solve(A: number[][], b: number[]): number[] | null {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (Math.abs(M[p][c]) < 1e-300) return null;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let j = c; j <= n; j++) M[r][j] -= f * M[c][j];
    }
  }
  return M.map((row, i) => row[n] / row[i]);
}

// ---- size distributions ----

/**
 * Sizes as a mixture "size 1 with probability p, else geometric of mean m" from the mean size M
 * and the share of size 1 s1: P(1) = p + (1-p)/m and M = p + (1-p) m give m = (M-1)/(1-s1) and
 * 1-p = (M-1)/(m-1). A share of 1-lots at or below the geometric's own (p <= 0) is a plain
 * geometric: p = 0, m = M.
 */
export function sizeOneMixture(t: SizeTally): { p: number; mean: number; observedMean: number } {
  const M = t.sum / t.n;
  const s1 = t.ones / t.n;
  if (!(M > 1) || !(s1 < 1)) return { p: 0, mean: Math.max(1, M), observedMean: M };
  const m = (M - 1) / (1 - s1);
  const p = m > 1 ? 1 - (M - 1) / (m - 1) : 0;
  return p > 0 ? { p, mean: m, observedMean: M } : { p: 0, mean: M, observedMean: M };
}

/** Market-order sizes as the generator draws them: two geometrics (means small, large; weight prob of the large), by EM. */
export function fitTradeSizes(
  hist: ReadonlyMap<number, number>,
  init: { small: number; large: number; prob: number },
): { small: number; large: number; prob: number } {
  const sizes = [...hist.keys()];
  const counts = sizes.map((k) => hist.get(k)!);
  let { small, large, prob } = init;
  const geo = (k: number, m: number): number => (m <= 1 ? (k === 1 ? 1 : 0) : (1 / m) * (1 - 1 / m) ** (k - 1));
  for (let it = 0; it < 500; it++) {
    let w = 0,
      wk = 0,
      n = 0,
      nk = 0,
      total = 0;
    for (let i = 0; i < sizes.length; i++) {
      const k = sizes[i];
      const pl = prob * geo(k, large);
      const ps = (1 - prob) * geo(k, small);
      const r = pl + ps > 0 ? pl / (pl + ps) : 0;
      w += counts[i] * r;
      wk += counts[i] * r * k;
      n += counts[i] * (1 - r);
      nk += counts[i] * (1 - r) * k;
      total += counts[i];
    }
    const next = { small: n > 0 ? Math.max(1, nk / n) : small, large: w > 0 ? Math.max(1, wk / w) : large, prob: w / total };
    const done = Math.abs(next.small - small) < 1e-9 && Math.abs(next.large - large) < 1e-9 && Math.abs(next.prob - prob) < 1e-12;
    ({ small, large, prob } = next);
    if (done) break;
  }
  return small <= large ? { small, large, prob } : { small: large, large: small, prob: 1 - prob };
}

/**
 * Durations of spreads wider than one tick as the generator makes them: with probability p a
 * racer closes the gap after an exponential delay (mean raceMean), else the inside flow does
 * (exponential, mean insideMean): a two-exponential mixture, by EM.
 */
export function fitGapMixture(sorted: Float64Array): { p: number; raceMeanNs: number; insideMeanNs: number } {
  const n = sorted.length;
  let p = 0.5;
  let m1 = Math.max(1, sorted[Math.floor(n * 0.25)]);
  let m2 = Math.max(m1 * 10, sorted[Math.min(n - 1, Math.floor(n * 0.97))]);
  for (let it = 0; it < 1000; it++) {
    let r1 = 0,
      r1x = 0,
      r2 = 0,
      r2x = 0;
    for (let i = 0; i < n; i++) {
      const x = sorted[i];
      const a = (p / m1) * Math.exp(-x / m1);
      const b = ((1 - p) / m2) * Math.exp(-x / m2);
      const r = a + b > 0 ? a / (a + b) : x < m1 ? 1 : 0;
      r1 += r;
      r1x += r * x;
      r2 += 1 - r;
      r2x += (1 - r) * x;
    }
    const np = r1 / n;
    const nm1 = r1 > 0 ? r1x / r1 : m1;
    const nm2 = r2 > 0 ? r2x / r2 : m2;
    const done = Math.abs(np - p) < 1e-10 && Math.abs(nm1 - m1) <= 1e-9 * m1 && Math.abs(nm2 - m2) <= 1e-9 * m2;
    p = np;
    m1 = nm1;
    m2 = nm2;
    if (done) break;
  }
  return m1 <= m2 ? { p, raceMeanNs: m1, insideMeanNs: m2 } : { p: 1 - p, raceMeanNs: m2, insideMeanNs: m1 };
}

/**
 * Hawkes branching ratio n and decay time from the Fano factors F(T) of flow-event counts in
 * windows of two lengths: for an exponential kernel F(T) = F_inf - (F_inf - 1)(1 - e^(-kT))/(kT)
 * with F_inf = 1/(1-n)^2 and k = (1-n)/decay; grid search on the squared log error. Counts are
 * compared within each minute, so the slow intraday activity changes are not taken for bursts.
 */
export function fitBursts(fShort: number, fLong: number): { branching: number; decayS: number } {
  if (!(fShort > 0) || !(fLong > 0)) return { branching: 0, decayS: NaN };
  const Ts = FANO_SHORT_NS / NS;
  const Tl = FANO_LONG_NS / NS;
  const F = (n: number, d: number, T: number): number => {
    const fi = 1 / (1 - n) ** 2;
    const kT = ((1 - n) / d) * T;
    return fi - (fi - 1) * ((1 - Math.exp(-kT)) / kT);
  };
  let best = { err: Infinity, branching: 0, decayS: NaN };
  for (let i = 0; i <= 98; i++) {
    const n = i / 100;
    for (let j = 0; j <= 60; j++) {
      const d = 0.002 * 1000 ** (j / 60); // 2 ms .. 2 s
      const err = Math.log(F(n, d, Ts) / fShort) ** 2 + Math.log(F(n, d, Tl) / fLong) ** 2;
      if (err < best.err) best = { err, branching: n, decayS: d };
    }
  }
  return best.branching > 0 ? best : { branching: 0, decayS: NaN };
}

// ---- the calibration ----

/** modifyPerCancel from modify events per activity-weighted resting contract-second at the best. */
export function modifyPerCancel(perContract: number, p: Readonly<MarketProfile>, cancelSize1Prob: number): number {
  const meanCancel = cancelSize1Prob + (1 - cancelSize1Prob) * p.cancelSize;
  return (perContract * meanCancel) / p.cancelHazard;
}

/** Fits the profile to what `m` measured; `base` supplies what cannot be identified. */
export function calibrate(m: CalibrationMeter, base: Readonly<MarketProfile>): Calibration {
  const p: MarketProfile = { ...base };
  const fitted: Record<string, string> = {};
  const kept: Record<string, string> = {};
  const rows = m.minutes;
  const sum = (f: (r: MinuteRow) => number): number => rows.reduce((s, r) => s + f(r), 0);
  const seconds = sum((r) => r.seconds);
  if (!(seconds > 60)) throw new Error(`calibration needs at least a minute of market data after the opening book, got ${seconds.toFixed(1)} s`);

  const spikes = fitSpikes(rows, p);
  const spikeWhy = `flow events per minute within ${SPIKE_SPAN} decay times of the edge over the U-shape fitted without them (decay time: the base's)`;
  for (const [k, v] of [
    ['openSpikeBoost', spikes.open],
    ['closeSpikeBoost', spikes.close],
  ] as const) {
    if (v === null) continue;
    p[k] = v;
    fitted[k] = spikeWhy;
  }
  const act = fitActivity(rows, p);
  const shapeWhy = 'flow events per minute: weighted least squares of the U-shape';
  const decayWhy = `the window spans less than ${DECAY_SPAN_S / 60} minutes from it (a longer decay would look like a higher level)`;
  for (const [part, seen, decayFitted, edge] of [
    ['open', act.open, act.openDecay, '09:30'],
    ['close', act.close, act.closeDecay, '16:00'],
  ] as const) {
    const boost = `${part}Boost` as const;
    const decay = `${part}DecayS` as const;
    if (!seen) {
      kept[boost] = kept[decay] = `the window has no minutes within 5 minutes of ${edge} and 20 minutes away from it`;
      continue;
    }
    p[boost] = act.shape[boost];
    fitted[boost] = shapeWhy;
    if (decayFitted) {
      p[decay] = act.shape[decay];
      fitted[decay] = shapeWhy;
    } else kept[decay] = decayWhy;
  }
  // Exposure: a quantity's integral weighted by the order flow's activity factor in its minute
  // (the U-shape and the flow structure's spikes); the variance rate follows the U-shape alone.
  const flowFactor = new Map<MinuteRow, number>();
  for (const r of rows)
    flowFactor.set(
      r,
      overMinute(r.todNs, (t) => activityAt(p, t) * spikeAt(p, t)),
    );
  const a = (r: MinuteRow): number => flowFactor.get(r)!;
  const exposure = sum((r) => a(r) * r.seconds);

  p.queueTarget = sum((r) => r.bestQueueS) / seconds / 2;
  fitted.queueTarget = 'time-weighted mean best-level queue';

  const add = sizeOneMixture(m.bestAdd);
  p.addSize = add.mean;
  fitted.addSize = fitted.addSize1Prob = 'best-level add sizes: mean and share of size 1 (1-lot mixture)';
  const can = sizeOneMixture(m.bestCancel);
  p.cancelSize = can.mean;
  fitted.cancelSize = fitted.cancelSize1Prob = 'best-level cancel sizes: mean and share of size 1 (1-lot mixture)';
  p.cancelHazard = (can.observedMean * sum((r) => r.bestCancels)) / sum((r) => a(r) * r.bestQueueS);
  fitted.cancelHazard = 'contracts cancelled at the best over the activity-weighted best-queue contract-seconds';
  const extra: FlowExtra = { addSize1Prob: add.p, cancelSize1Prob: can.p };
  if (spikes.open !== null) extra.openSpikeBoost = spikes.open;
  if (spikes.close !== null) extra.closeSpikeBoost = spikes.close;

  const mkts = sum((r) => r.marketOrders);
  p.marketRate = mkts / exposure / 2;
  fitted.marketRate = 'market orders (trades at one timestamp and side) over the activity-weighted seconds, per side';
  const trade = fitTradeSizes(m.tradeSizes, { small: base.tradeSizeSmall, large: base.tradeSizeLarge, prob: base.tradeLargeProb });
  p.tradeSizeSmall = trade.small;
  p.tradeSizeLarge = trade.large;
  p.tradeLargeProb = trade.prob;
  fitted.tradeSizeSmall = fitted.tradeSizeLarge = fitted.tradeLargeProb = 'market-order sizes: two-geometric mixture by EM';

  if (m.insideAdd.n > 0) {
    p.burstSize = m.insideAdd.sum / m.insideAdd.n;
    fitted.burstSize = 'mean size of adds inside a spread wider than one tick';
  } else kept.burstSize = 'no add inside a wide spread';
  const gaps = m.gaps.sorted();
  if (gaps.length >= 50) {
    const g = fitGapMixture(gaps);
    p.raceProb = g.p;
    p.raceMeanUs = g.raceMeanNs / 1e3;
    p.insideRate = ((1 - g.p) * gaps.length) / sum((r) => a(r) * r.gapS);
    fitted.raceProb = fitted.raceMeanUs = 'durations of spreads wider than one tick: two-exponential mixture by EM (the short one)';
    fitted.insideRate = 'gaps closed by the slow component over the activity-weighted gap seconds';
  } else kept.raceProb = kept.raceMeanUs = kept.insideRate = `${gaps.length} spreads wider than one tick (50 needed)`;

  if (m.deepVisible) {
    const deepAdd = sizeOneMixture(m.deepAdd);
    p.deepAddSize = deepAdd.mean;
    extra.deepAddSize1Prob = deepAdd.p;
    fitted.deepAddSize = fitted.deepAddSize1Prob = 'sizes of adds to a non-empty level behind the best: mean and share of size 1';
    const dc = m.deepCancel.sum / m.deepCancel.n;
    p.deepCancelSize = dc;
    fitted.deepCancelSize = `mean size of cancels 1..${MAX_DEPTH} ticks behind the best`;
    p.deepCancelHazard = (dc * sum((r) => r.deepCancels)) / sum((r) => a(r) * r.deepVolumeS);
    fitted.deepCancelHazard = `contracts cancelled 1..${MAX_DEPTH} ticks behind the best over the activity-weighted contract-seconds resting there`;
    p.emptyLevelFillRate = sum((r) => r.emptyAdds) / sum((r) => a(r) * r.emptyLevelsS);
    fitted.emptyLevelFillRate = `adds to an empty level within ${MAX_DEPTH} ticks over the activity-weighted empty-level seconds`;
    // Mean size at distance k relative to the queue: near = k 1; peak and far from a straight
    // line through k 4..MAX_DEPTH (the generator's target profile is linear there).
    const rel = (k: number): number => m.depthProfileS[k] / seconds / 2 / p.queueTarget;
    let sx = 0,
      sy = 0,
      sxx = 0,
      sxy = 0,
      n = 0;
    for (let k = 4; k <= MAX_DEPTH; k++) {
      sx += k;
      sy += rel(k);
      sxx += k * k;
      sxy += k * rel(k);
      n++;
    }
    const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    const icpt = (sy - slope * sx) / n;
    p.deepShapePeak = icpt + slope * 4;
    p.deepShapeFar = Math.max(0.01, icpt + slope * MAX_DEPTH);
    fitted.deepShapePeak = fitted.deepShapeFar = `time-weighted mean size 4..${MAX_DEPTH} ticks behind the best over queueTarget, a straight line`;
    kept.deepShapeNear = 'the level next to the best is mostly a former best queue (price moves), not its target: not identified';
  } else {
    for (const k of [
      'deepAddSize',
      'deepAddSize1Prob',
      'deepCancelSize',
      'deepCancelHazard',
      'emptyLevelFillRate',
      'deepShapeNear',
      'deepShapePeak',
      'deepShapeFar',
    ])
      kept[k] = `needs MBO data: an MBP-10 book shows 10 levels, whose edge moves with the price`;
  }

  const moves = sum((r) => r.squaredMoves);
  const varExposure = sum((r) => overMinute(r.todNs, (t) => activityAt(p, t)) * r.seconds);
  if (m.midSamples >= 10 && moves > 0) {
    p.annualVol = (Math.sqrt(moves / varExposure) * Math.sqrt(YEAR_S)) / (m.midSum / m.midSamples);
    fitted.annualVol = 'realised variance of the mid sampled every 10 s over the U-shape-weighted seconds, annualised';
  } else kept.annualVol = 'fewer than 10 mid samples';

  if (m.mbo) {
    // Modify events at a best level = a x cancelHazard / (mean cancel size) x modifyPerCancel x queue.
    const perContract = sum((r) => r.modifies) / sum((r) => a(r) * r.bestQueueS);
    extra.modifyPerCancel = modifyPerCancel(perContract, p, can.p);
    fitted.modifyPerCancel = 'M records over the activity-weighted best-queue contract-seconds, over cancelHazard / mean cancel size (MBO)';
  } else kept.modifyPerCancel = 'needs MBO data (modifies are order-level)';
  const b = fitBursts(fanoFactor(m.fano.short), fanoFactor(m.fano.long));
  extra.burstBranching = b.branching;
  fitted.burstBranching = 'Fano factors of flow-event counts in 20 ms and 1 s windows (within each minute), Hawkes exponential kernel';
  if (b.branching > 0) {
    extra.burstDecayS = b.decayS;
    fitted.burstDecayS = fitted.burstBranching;
  } else kept.burstDecayS = 'no excess clustering (branching 0)';

  for (const k of ['volOfVol', 'volMeanReversionS', 'activityVolCoupling', 'dailyVolDispersion'])
    kept[k] = 'volatility clustering and its coupling to activity need many hours of data: not estimated';
  for (const k of ['pressureTicks', 'pressureReversionS', 'kappaMarket', 'kappaCancel', 'kappaAdd', 'kappaVolPower', 'kappaInside', 'imbalanceSensitivity'])
    kept[k] = 'the latent price and its feedback are not observed: not identified by moments';
  kept.maxSweepLevels = 'a cap, not a rate: not identified';
  for (const k of Object.keys(p)) if (!(k in fitted) && !(k in kept)) kept[k] = 'not estimated';

  return {
    profile: p,
    extra,
    fitted,
    kept,
    inputs: { sessions: m.windows.length, seconds, flowEvents: sum((r) => r.flowEvents), marketOrders: mkts, gaps: gaps.length, mbo: m.mbo },
  };
}
