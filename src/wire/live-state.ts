// What GET /api/state and the stream's `state` event carry: the live state of each symbol.

import { z } from 'zod';
import { feeScheduleSchema } from './fee-schedule.ts';
import { executionCounterFields, intradaySharpe, tradeMetricFields } from './trade-metrics.ts';

const price = (what: string) => z.number().describe(what);
const nullablePrice = (what: string) => z.number().nullable().describe(what);
const isoTime = (what: string) => z.iso.datetime().describe(`${what} (ISO 8601)`);

export const sideSchema = z.enum(['buy', 'sell']);

export const latencySummarySchema = z
  .object({
    count: z.int().describe('samples in the window'),
    p50_us: z.number().nullable().describe('median'),
    p90_us: z.number().nullable().describe('90th percentile'),
    p99_us: z.number().nullable().describe('99th percentile'),
    max_us: z.number().nullable().describe('maximum'),
  })
  .describe("Latency over the runtime's recent window, in microseconds (null when there is no sample).");
export type LatencySummary = z.infer<typeof latencySummarySchema>;

export const fillSchema = z
  .object({
    symbol: z.string().describe('contract symbol, e.g. ESH24'),
    time: isoTime('simulated exchange time'),
    side: sideSchema.describe('side of our order'),
    price: price('fill price'),
    qty: z.int().describe('filled contracts'),
    liquidity: z.enum(['maker', 'taker']).describe('maker = passive, taker = aggressive'),
    fee: z.number().describe('fee of this fill in USD (negative = rebate)'),
    pnl: z.number().describe('closed-trade P&L this fill realised, net of pro-rata fees (USD)'),
    position: z.int().describe('position after the fill (contracts)'),
    order_id: z.int().describe('our order id'),
    order_to_fill_us: z
      .number()
      .describe('simulated time from sending the order to its fill reaching the engine, including the time it rested in the queue (us)'),
  })
  .describe('One fill of our orders.');
export type FillView = z.infer<typeof fillSchema>;

export const bookLevelSchema = z.object({ price: price('price'), size: z.int().describe('displayed contracts') }).describe('One price level.');

export const ourOrderSchema = z
  .object({
    id: z.int().describe('order id'),
    side: sideSchema.describe('side'),
    price: price('limit price'),
    qty: z.int().describe('original contracts'),
    leaves: z.int().describe('contracts still working'),
    state: z.enum(['pending_new', 'live', 'pending_cancel']).describe('order state'),
  })
  .describe('One of our working orders.');
export type OurOrder = z.infer<typeof ourOrderSchema>;

/** A risk alert as the risk module raises it (`ts` on the engine's session clock). */
export const alertSchema = z
  .object({
    ts: z.number().describe('engine timestamp (ns on the session clock)'),
    severity: z.enum(['info', 'warning', 'critical']).describe('severity'),
    code: z.string().describe('alert code, e.g. KILL_SWITCH, DRAWDOWN_WARNING'),
    message: z.string().describe('human-readable message'),
    value: z.number().describe('the figure that raised the alert'),
    limit: z.number().describe('the limit it was compared with'),
  })
  .describe('A risk alert.');
export type Alert = z.infer<typeof alertSchema>;
export type Severity = Alert['severity'];

export const stateAlertSchema = alertSchema.extend({ time: isoTime('simulated time of the alert') }).describe('A risk alert of the live simulation.');
export type StateAlert = z.infer<typeof stateAlertSchema>;

export const symbolStateSchema = z
  .object({
    symbol: z.string().describe('contract symbol, e.g. ESH24'),
    root: z.string().describe('contract root, e.g. ES'),
    tick_size: z.number().describe('price units per tick (the contract table or definition records), e.g. 0.25'),
    point_value: z.number().describe('USD per 1.0 of price per contract, e.g. 50'),
    session_date: z.iso.date().describe('trading session date'),
    sim_time: isoTime('simulated time'),
    book: z
      .object({
        bids: z.array(bookLevelSchema).describe('up to 15 bid levels, best first'),
        asks: z.array(bookLevelSchema).describe('up to 15 ask levels, best first'),
        best_bid: nullablePrice('best bid price'),
        best_ask: nullablePrice('best ask price'),
        spread: nullablePrice('best ask - best bid, in price units'),
        mid: nullablePrice('mid price'),
        microprice: nullablePrice('size-weighted mid'),
        our_orders: z.array(ourOrderSchema).describe('our working orders'),
      })
      .describe('Local order book as seen through delayed market data.'),
    position: z
      .object({
        contracts: z.int().describe('net position (negative = short)'),
        avg_price: nullablePrice('average entry price of the open position'),
        realized_pnl_gross: z.number().describe('realized P&L of the closed quantity on price alone, gross of fees, USD'),
        fees: z.number().describe('fees paid, every fill (negative: a net rebate), USD'),
        realized_pnl_net: z.number().describe('realized_pnl_gross - fees, USD: equity - initial capital = realized_pnl_net + unrealized_pnl'),
        unrealized_pnl: z.number().describe('open position marked at the last two-sided mid, USD'),
        equity: z.number().describe('initial capital + realized + unrealized - fees, USD'),
        total_pnl: z.number().describe('equity - initial capital, USD'),
        drawdown_pct: z.number().describe('current drawdown from the equity peak, percent'),
        daily_pnl: z.number().describe('P&L of the current session, USD'),
      })
      .describe('Position and P&L (USD).'),
    fee_schedule: feeScheduleSchema,
    stats: z
      .object({
        fills: z.int().describe('fills'),
        volume: z.int().describe('contracts filled'),
        ...tradeMetricFields,
        sharpe_ratio: intradaySharpe
          .nullable()
          .describe(
            "the intraday Sharpe ratio: the current session's per-minute equity returns, mean / sample std (n-1) x sqrt(252 x 390); null " +
              'with fewer than two returns',
          ),
      })
      .describe('Trade statistics of the current session (docs/metrics.md).'),
    recent_trades: z.array(fillSchema).describe('recent fills, newest first'),
    latency: z
      .object({ tick_to_trade: latencySummarySchema, book_update: latencySummarySchema, inference: latencySummarySchema })
      .describe('Latency summaries by stage.'),
    prediction: z
      .object({
        value_ticks: z.number().describe('predicted mid move, ticks'),
        horizon_ms: z.number().describe('prediction horizon, ms'),
        age_ms: z.number().describe('age of the prediction, ms'),
        model_version: z.string().describe('model version'),
      })
      .nullable()
      .describe('Latest model prediction (null when none).'),
    model: z
      .object({
        loaded: z.boolean().describe('a model is loaded'),
        version: z.string().nullable().describe('model version'),
        error: z.string().nullable().describe('load error'),
        used_in_quotes: z
          .boolean()
          .describe('the live strategy shifts its quotes by the prediction (strategy.use_ml = true and a model loaded); false = the forecast is only shown'),
      })
      .describe('Model status.'),
    risk: z
      .object({
        limits: z
          .object({
            position_limit: z.int().describe('contracts'),
            max_order_size: z.int().describe('contracts per order'),
            max_drawdown_pct: z
              .number()
              .describe('kill-switch drawdown limit, percent of peak equity (6 = 6%; the config and a backtest request give it as a fraction, 0.06)'),
            max_daily_loss: z.number().describe('USD'),
            kill_switch_enabled: z.boolean().describe('kill switch enabled'),
          })
          .describe('Configured limits.'),
        utilisation: z
          .object({ position: z.number().describe('fraction'), drawdown: z.number().describe('fraction'), daily_loss: z.number().describe('fraction') })
          .describe('Fractions of the limits in use.'),
        kill_switch: z
          .object({
            active: z.boolean().describe('quoting stopped'),
            reason: z.string().nullable().describe('why it tripped'),
            time: z.iso.datetime().nullable().describe('when it tripped (ISO 8601)'),
          })
          .describe('Kill switch state.'),
        alerts: z.array(stateAlertSchema).describe('recent alerts, newest last'),
      })
      .describe('Risk limits, utilisation, kill switch and alerts.'),
    counters: z
      .object({
        events: z.int().describe('market-data events handled'),
        events_per_sec: z.number().describe('recent event rate'),
        orders: z.int().describe('orders sent'),
        cancels: z.int().describe('cancels sent'),
        rejects: z.int().describe('rejected orders'),
        ...executionCounterFields,
        ring_drops: z.int().describe('records dropped by full rings'),
        uptime_s: z.number().describe('seconds since the runtime started'),
      })
      .describe('Counters.'),
  })
  .describe('Live state of one symbol.');
export type SymbolState = z.infer<typeof symbolStateSchema>;

export const statePayloadSchema = z
  .object({
    version: z.string().describe('engine version'),
    uptime_s: z.number().describe('seconds since the runtime started'),
    data_source: z
      .string()
      .describe('the live market: "synthetic", or "dbn <name>" for recorded data replayed at [simulation] speed ([simulation] source = "replay")'),
    strategy: z
      .object({
        name: z.string().describe('registered name'),
        version: z.string().describe('declared version'),
        hash: z.string().describe('content hash (GET /api/strategies)'),
      })
      .nullable()
      .describe('the strategy the live engine runs ([strategy] name)'),
    symbols: z.array(z.string()).describe('symbols in `states`'),
    states: z.record(z.string(), symbolStateSchema).describe('symbol -> state'),
  })
  .describe('Live state of every configured symbol (or the one asked for).');
export type StatePayload = z.infer<typeof statePayloadSchema>;
