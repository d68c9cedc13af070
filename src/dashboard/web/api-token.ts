// The engine's API token, when the engine requires one (it answered 401): typed into the backtest
// form and kept in this tab's sessionStorage only (gone when the tab closes, never sent to another
// origin). The dashboard server adds no credentials of its own; it passes this header through.

const KEY = 'engine-api-token';

export function apiToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the token must be typed again
  }
}

export function saveApiToken(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // storage disabled: used for this request only
  }
}

export function forgetApiToken(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}

/** `init` with `Authorization: Bearer <token>` added when a token is stored. */
export function withApiToken(init: RequestInit = {}): RequestInit {
  const token = apiToken();
  if (token === null) return init;
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}
