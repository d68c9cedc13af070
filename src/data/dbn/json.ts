// DBN values as JSON: 64-bit integers (bigint) as decimal strings, since a JSON number read back
// as a double cannot hold them exactly (Databento's own JSON output does the same).
export function dbnJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}
