// The price of an empty side (and of a side not to quote), in ticks: the least int32 (hot-path
// rule 5), in a module of its own that imports nothing (hot-path rule 6).
export const NO_PRICE = -2147483648;
