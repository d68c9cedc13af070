// The engine thread's idle policy (`[simulation] engine_idle`) as the spin it gives the worker:
// how long before its next input is due the thread stops sleeping and spins (a spinning thread
// also wakes 50 µs earlier to warm its order path first: workers/order-book.ts).
//   block      0 µs: Atomics.wait until the input is due or a producer wakes it (least CPU; every
//              input pays a timed wait's or a wake-up's lateness, tens of µs on a shared machine)
//   spin      50 µs: the default
//   busy_poll  never sleeps: one core busy all the time, the lowest and steadiest latency
import type { ENGINE_IDLE_POLICIES } from '../config/schema.ts';

export type EngineIdlePolicy = (typeof ENGINE_IDLE_POLICIES)[number];

export const DEFAULT_SPIN_US = 50;

export function idleSpinUs(policy: EngineIdlePolicy): number {
  if (policy === 'busy_poll') return Infinity;
  return policy === 'block' ? 0 : DEFAULT_SPIN_US;
}
