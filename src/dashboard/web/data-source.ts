// Where a market came from, as the dashboard shows it: the live view's (state payload) and each
// backtest's (result). "synthetic" is the generator; "dbn <name> (...)" is recorded data replayed.

import { DASH } from './format.ts';

/** Short label: "synthetic", or "DBN <name>" (the full text goes into the title). */
export function dataSourceLabel(ds: string | null | undefined): string {
  if (!ds) return DASH;
  return ds.startsWith('dbn ') ? `DBN ${ds.slice(4).split(' (')[0]}` : ds;
}
