// uvu ignores an exception thrown by a before() hook: the file then reports "(0 / N)" and the run
// still exits 0. `beforeAll` registers setup whose failure fails every test of the file instead.
import type { Test } from 'uvu';

export function beforeAll(test: Test, setup: () => unknown): void {
  let failure: { error: unknown } | null = null;
  test.before(async () => {
    try {
      await setup();
    } catch (error) {
      failure = { error };
    }
  });
  test.before.each(() => {
    if (failure) throw failure.error;
  });
}
