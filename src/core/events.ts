// Record layouts of the engine's streams (fields of RecordRing records) and their codes.
// All numbers are exact integers in float64: nanosecond timestamps, integer ticks, contracts.

export const BID = 0;
export const ASK = 1;
export type Side = 0 | 1;

// ---- market events: the exchange's L2 feed (one change of one price level per record) ----
export const MD_ADD = 1; // size added at a level
export const MD_CANCEL = 2; // size removed from a level without a trade
export const MD_TRADE = 3; // a trade: the aggressor took `qty` resting at `price` on `side`
export const MD_RESET = 4; // simulation mode only: clear the book; a snapshot follows (EV_PRICE = session index)

export const EV_TS = 0; // exchange timestamp, ns since the session date's midnight New York time
export const EV_KIND = 1;
export const EV_SIDE = 2; // resting side whose level changed (for a trade: the passive side)
export const EV_PRICE = 3; // ticks
export const EV_QTY = 4; // contracts
export const EV_RECV = 5; // time the engine receives it (ns): exchange time + market-data latency
export const EV_STRIDE = 6;

// ---- order messages: engine -> exchange ----
export const OM_NEW = 1;
export const OM_CANCEL = 2;
/**
 * Modify a working order (CME's cancel/replace, in-flight mitigation on): OM_ID names it, OM_SIDE
 * repeats its side, OM_PRICE is the new price and OM_QTY the new total quantity, counting what
 * has filled already (the rest works: OM_QTY - filled). OM_FLAGS is not read: the order keeps the
 * flags it was entered with. Priority: docs/execution.md "Modify".
 */
export const OM_MODIFY = 3;

export const OM_TS = 0; // time the message reaches the exchange (ns)
export const OM_SENT = 1; // time the engine sent it (ns)
export const OM_TYPE = 2;
export const OM_ID = 3;
export const OM_SIDE = 4; // BID = buy, ASK = sell
export const OM_PRICE = 5;
export const OM_QTY = 6;
export const OM_FLAGS = 7;
export const OM_STRIDE = 8;

export const FLAG_POST_ONLY = 1; // reject instead of crossing the spread
export const FLAG_IOC = 2; // take what is available now, cancel the rest

// ---- execution reports: exchange -> engine ----
export const ER_ACK = 1; // order accepted and resting
export const ER_REJECT = 2; // order refused (reason code in ER_REASON)
export const ER_FILL = 3; // (partial) fill
export const ER_CANCELED = 4; // cancel confirmed (also the unfilled rest of an IOC)
export const ER_CANCEL_REJECT = 5; // cancel arrived after the order was done
export const ER_MODIFIED = 6; // modify applied: ER_PRICE = the new price, ER_LEAVES = the quantity now working
export const ER_MODIFY_REJECT = 7; // modify refused, the order (if still live) works on unchanged (reason in ER_REASON)

export const ER_TS = 0; // time the report reaches the engine (ns)
export const ER_EXCH_TS = 1; // exchange time of the event (ns)
export const ER_TYPE = 2;
export const ER_ID = 3;
export const ER_SIDE = 4;
export const ER_PRICE = 5; // fill price for fills, order price otherwise
export const ER_QTY = 6; // filled quantity of this report
export const ER_LEAVES = 7; // quantity still open after this report
export const ER_LIQ = 8; // LIQ_MAKER or LIQ_TAKER
export const ER_FEE = 9; // USD paid for this fill (negative = rebate)
export const ER_REASON = 10;
export const ER_SENT = 11; // engine send time of the order message that caused it (ns)
export const ER_STRIDE = 12;

export const LIQ_MAKER = 0;
export const LIQ_TAKER = 1;

export const REJECT_NONE = 0;
export const REJECT_POST_ONLY_CROSS = 1;
export const REJECT_UNKNOWN_ORDER = 2;
export const REJECT_BAD_ORDER = 4;
/** ER_CANCELED by the exchange's self-match prevention (our new order would have traded with it). */
export const CANCEL_SELF_MATCH = 5;
/** ER_CANCELED by a modify whose new total quantity is no more than what has filled already. */
export const CANCEL_MODIFY_FILLED = 6;

export const NS_PER_MS = 1_000_000;
export const NS_PER_S = 1_000_000_000;
export const NS_PER_MIN = 60 * NS_PER_S;
