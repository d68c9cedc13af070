// The one-shot modes' log lines on stderr, which they share with the progress bar. While the bar
// owns the terminal line, a line written there would be drawn over (and would move the cursor the
// bar saved, so the summary after it lands on the bar's leftovers): the lines wait and follow
// once the bar is cleared. At most MAX_HELD wait; the rest are counted and the count is printed.
import { writeSync } from 'node:fs';

const MAX_HELD = 10_000;

export class HeldLog {
  private held: string[] | null = null;
  private dropped = 0;
  constructor(private readonly out: (text: string) => void = (text) => writeSync(2, text)) {}

  /** pino's destination: one JSON line. */
  write(line: string): void {
    if (this.held === null) this.out(line);
    else if (this.held.length < MAX_HELD) this.held.push(line);
    else this.dropped++;
  }

  hold(): void {
    this.held ??= [];
  }

  /** Writes what waited, in order, and lets lines through again. */
  release(): void {
    const lines = this.held;
    this.held = null;
    if (lines?.length) this.out(lines.join(''));
    if (this.dropped) this.out(`(${this.dropped} more log lines were dropped while the progress bar ran)\n`);
    this.dropped = 0;
  }
}

/** stderr's log for the one-shot modes (src/bin/engine.ts gives it to the logger; the bar holds it). */
export const stderrLog = new HeldLog();
