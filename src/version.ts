// The engine version, logged at startup and reported by the API.
export const VERSION = 'v0.1.0';
