// The time axis of every chart: market time in New York, as CME sessions are quoted. Kept free of
// DOM code so a Node test can check the labels against the library's limits.

import type { Time, TimeScaleOptions } from 'lightweight-charts';
import { fmtNyDate, fmtNyMinute, fmtNyTime } from './format.ts';

const timeSec = (t: Time): number => (typeof t === 'number' ? t : typeof t === 'string' ? Date.parse(t) / 1000 : Date.UTC(t.year, t.month - 1, t.day) / 1000);

export const TIME_AXIS = {
  timeVisible: true,
  secondsVisible: true,
  rightOffset: 4,
  // Also makes the library move the first label inside the axis (else "09:30" shows as ":30"),
  // and the last one (else a date at the right edge shows as "2024-01-(").
  fixLeftEdge: true,
  fixRightEdge: true,
  // Room for a whole date label (YYYY-MM-DD); the library's default cuts labels at 8 characters.
  tickMarkMaxCharacterLength: 10,
  /** type: 0-2 year/month/day, 3 time, 4 time with seconds (lightweight-charts TickMarkType). */
  tickMarkFormatter: (t: Time, type: number): string => {
    const ms = timeSec(t) * 1000;
    return type <= 2 ? fmtNyDate(ms) : type === 3 ? fmtNyMinute(ms) : fmtNyTime(ms);
  },
} satisfies Partial<TimeScaleOptions>;

/** The crosshair's time label. */
export const crosshairTime = (t: Time): string => `${fmtNyDate(timeSec(t) * 1000)} ${fmtNyTime(timeSec(t) * 1000)} NY`;
