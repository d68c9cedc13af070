// The research artifacts of recent runs, kept so a repeated GET costs no recomputation: one entry
// per run (all four artifacts, rendered together from one recomputation), least recently used
// evicted first, bounded by the bytes of what it holds ([backtest] artifact_cache_bytes). An
// entry larger than the whole bound is served once and not kept.

export type ArtifactBodies = ReadonlyMap<string, string | Uint8Array>;

const sizeOf = (b: string | Uint8Array) => (typeof b === 'string' ? Buffer.byteLength(b) : b.byteLength);

export class ArtifactCache {
  private readonly entries = new Map<string, { bodies: ArtifactBodies; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.total;
  }

  get(id: string): ArtifactBodies | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    this.entries.delete(id); // most recently used last
    this.entries.set(id, e);
    return e.bodies;
  }

  put(id: string, bodies: ArtifactBodies): void {
    let bytes = 0;
    for (const b of bodies.values()) bytes += sizeOf(b);
    this.delete(id);
    if (bytes > this.maxBytes) return;
    for (const [oldest] of this.entries) {
      if (this.total + bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(id, { bodies, bytes });
    this.total += bytes;
  }

  private delete(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    this.total -= e.bytes;
  }
}
