// Tags of the generator's level changes that are order modifies (MarketGenerator.generate's
// optional tags; the MBO export writes them as M records). The L2 stream itself has no modify:
// a size change is a cancel or an add of the difference, a price change a cancel at the old
// price followed, at the same timestamp, by an add at the new one. Import-free (hot-path rule 6).

/** Not a modify: an add, cancel or trade. */
export const MOD_NONE = 0;
/** MD_CANCEL: an order's size reduced by qty; it keeps its queue place. */
export const MOD_DOWN = 1;
/** MD_ADD: an order's size raised by qty; it goes to the back of its queue. */
export const MOD_UP = 2;
/** MD_CANCEL: an order of size qty leaves this price (the next record, MOD_MOVE_TO, says where). */
export const MOD_MOVE_FROM = 3;
/** MD_ADD: the order of the preceding MOD_MOVE_FROM arrives here, at the back of the queue. */
export const MOD_MOVE_TO = 4;
