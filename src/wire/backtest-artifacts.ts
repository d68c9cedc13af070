// The research artifacts of a completed backtest run, served under /api/backtests/{id}/NAME:
// one definition read by the route (content type, file name) and the OpenAPI document.

export const ARTIFACT_NAMES = ['fills.csv', 'fills.parquet', 'equity.csv', 'orders.csv', 'orders.parquet', 'quotes.csv', 'quotes.parquet', 'report'] as const;

export interface ArtifactSpec {
  /** The last path segment. */
  name: (typeof ARTIFACT_NAMES)[number];
  contentType: string;
  summary: string;
  /** OpenAPI schema of the body. */
  schema: { type: 'string'; format?: 'binary'; description: string };
}

export const BACKTEST_ARTIFACTS: readonly ArtifactSpec[] = [
  {
    name: 'fills.csv',
    contentType: 'text/csv; charset=utf-8',
    summary:
      'Every fill of the run as CSV (time, session_date, symbol, side, price, quantity, liquidity, fee, order_id, then time_ns, ' +
      'position_after, realized_pnl_gross, realized_pnl_net, mid, markout_100ms..markout_60s)',
    schema: { type: 'string', description: 'CSV with a header row; full float64 precision; an empty field is a markout the session ended before' },
  },
  {
    name: 'fills.parquet',
    contentType: 'application/vnd.apache.parquet',
    summary:
      'Every fill of the run as Parquet (the CSV columns; time_ns a nanosecond UTC timestamp, session_date a date, quantity, order_id, ' +
      'position_after INT64; the run in the key-value metadata)',
    schema: { type: 'string', format: 'binary', description: 'Parquet file' },
  },
  {
    name: 'equity.csv',
    contentType: 'text/csv; charset=utf-8',
    summary: 'The equity curve, every sample (session open, each simulated minute, session end): time, time_ns, equity',
    schema: { type: 'string', description: 'CSV with a header row' },
  },
  {
    name: 'orders.csv',
    contentType: 'text/csv; charset=utf-8',
    summary:
      'The order log: every order sent and cancel (at the exchange) and every ack, reject, fill, cancel confirmation and cancel reject (at ' +
      'the engine), with their times and latencies (docs/research.md)',
    schema: { type: 'string', description: 'CSV with a header row; times in ns since the epoch; an empty field does not apply to the row' },
  },
  {
    name: 'orders.parquet',
    contentType: 'application/vnd.apache.parquet',
    summary: 'The order log as Parquet (the CSV columns; *_ns times as nanosecond UTC timestamps; the run in the key-value metadata)',
    schema: { type: 'string', format: 'binary', description: 'Parquet file' },
  },
  {
    name: 'quotes.csv',
    contentType: 'text/csv; charset=utf-8',
    summary: 'Our bid and ask, the mid and our position once a second of exchange time (docs/research.md)',
    schema: { type: 'string', description: 'CSV with a header row; an empty bid or ask: no quote on that side' },
  },
  {
    name: 'quotes.parquet',
    contentType: 'application/vnd.apache.parquet',
    summary: 'The quote series as Parquet (the CSV columns; time_ns a nanosecond UTC timestamp; the run in the key-value metadata)',
    schema: { type: 'string', format: 'binary', description: 'Parquet file' },
  },
  {
    name: 'report',
    contentType: 'text/html; charset=utf-8',
    summary: 'A self-contained HTML report (inline styles and SVG charts, no network)',
    schema: { type: 'string', description: 'HTML document' },
  },
];

export const ARTIFACTS_DESCRIPTION =
  "Recomputed on demand from the run's stored resolved request (seed included): backtests are deterministic, so nothing extra is stored. " +
  'Refused with 409 (conflict) when the run is not completed, when the model it used is not the current one, or when the recomputed result ' +
  'differs from the stored one (the config changed). ' +
  'A recomputation is admitted like a run of as many sessions ([backtest] max_queued_sessions, shared with runs; 503 busy with Retry-After ' +
  'when there is no room) and counts against the rate limit; ' +
  'the artifacts of recent runs are kept within [backtest] artifact_cache_bytes, so fetching several artifacts of one run computes it once ' +
  'and a cached read needs no admission.';
