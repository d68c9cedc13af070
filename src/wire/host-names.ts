// The Host header rule against DNS rebinding, shared by the engine's API (src/http/host-check.ts)
// and the dashboard server (src/dashboard/server/app.ts): a page on evil.example whose name is made
// to resolve to 127.0.0.1 reaches a server from the victim's browser, but its requests still say
// `Host: evil.example`. Loopback names are always allowed (any port); each server's list adds
// names, and "*" there turns the check off (e.g. behind a proxy that checks Host itself).

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The name part of a Host header value, lower case: "[::1]:9090" -> "[::1]", "Engine:9090" -> "engine". */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  const name = colon < 0 ? h : h.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * The allow-list as a predicate over the Host header, or null when every Host is allowed ("*").
 * No Host at all is an HTTP/1.0 client, never a browser (browsers always send one): allowed.
 */
export function hostAllowed(allowedHosts: readonly string[]): ((header: string | undefined) => boolean) | null {
  if (allowedHosts.includes('*')) return null;
  const allowed = new Set([...LOOPBACK_HOSTS, ...allowedHosts.map((h) => h.toLowerCase())]);
  return (header) => header === undefined || allowed.has(hostName(header));
}
