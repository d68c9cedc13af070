// The regular trading hours the synthetic market is stated for: 09:30-16:00 New York, ns after
// midnight (the intraday U-shape's open and close, and the daily path's default anchors). An
// import-free module (hot-path rule 6).

export const RTH_OPEN_NS = 9.5 * 3600e9;
export const RTH_CLOSE_NS = 16 * 3600e9;
