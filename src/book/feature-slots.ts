// FeatureExtractor's constants (features.ts): the slots of its state and constant arrays and how
// far beyond the best imbalanceL5 reads, in a module that imports nothing (hot-path rule 6).
// Internal to features.ts.

export const L5_REACH = 4; // ticks beyond the best that imbalanceL5 reads

// The extractor's numbers live in two Float64Arrays (state `s`, constants `k`), not in object
// fields (hot-path rule 4: `rate > this.volFloorSq ? rate : this.volFloorSq` on a field allocated
// once per event).
export const S_MID = 0;
export const S_SPREAD = 1;
export const S_OFI = 2;
export const S_X = 3; // scratch: the argument and result of expm1NegAt
export const S_VPIN = 4;
export const S_DEPTH_AVG = 5;
export const S_BUY = 6;
export const S_SELL = 7;
export const S_EVENTS = 8;
export const S_LAST_TS = 9;
export const S_PREV_BID = 10;
export const S_PREV_ASK = 11;
export const S_PREV_BID_SZ = 12;
export const S_PREV_ASK_SZ = 13;
export const S_W_BID = 14;
export const S_W_ASK = 15;
export const S_DEPTH_L1 = 16;
export const S_VOL_Q = 17;
export const S_MOM = 18; // mid - EWMA(mid) as of S_MID_T
export const S_BUCKET_BUY = 19;
export const S_BUCKET_SELL = 20;
// The inputs of the book-derived outputs at the last two-sided event (held while a side is empty).
export const S_TS_BID = 21;
export const S_TS_ASK = 22;
export const S_TS_BID_SZ = 23;
export const S_TS_ASK_SZ = 24;
export const S_TS_W_BID = 25;
export const S_TS_W_ASK = 26;
export const S_MID_T = 27; // the time Q (S_VOL_Q) and S_MOM are as of: the last mid change (or the first event)
export const S_MID_MOVES = 28; // mid changes since reset: Q changed only at these
export const S_COUNT = 29;

export const K_INV_OFI_TAU = 0;
export const K_INV_VOL_H = 1;
export const K_INV_MOM_TAU = 2;
export const K_INV_DEPTH_TAU = 3;
export const K_VOL_H_S = 4;
export const K_VOL_FLOOR_SQ = 5;
export const K_BUCKET_VOLUME = 6;
export const K_COUNT = 7;
