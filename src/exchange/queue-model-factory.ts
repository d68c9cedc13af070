// The queue model of a run, chosen by its name ([execution] queue_model): the L2 models of the
// port's file (queue-model.ts) or the L3 FIFO model (l3-fifo-queue.ts), which needs the order
// priorities of an MBO source.

import { L3FifoQueueModel, type L3Tape } from './l3-fifo-queue.ts';
import { L3_QUEUE_MODEL, PowerQueueModel, QUEUE_MODELS, type QueueModel, type QueueModelName, RiskAverseQueueModel } from './queue-model.ts';

/**
 * The queue model named `name`. `tape` carries the order priorities of an MBO source; l3_fifo
 * without one is an error (its queue position needs order identities no L2 feed has).
 */
export function queueModelFromName(name: QueueModelName | string, power = 2, tape: L3Tape | null = null): QueueModel {
  if (name === 'power') return new PowerQueueModel(power);
  if (name === 'risk_averse') return new RiskAverseQueueModel();
  if (name === L3_QUEUE_MODEL) {
    if (tape === null) throw new Error(`queue model "l3_fifo" needs order-level market data (MBO): the market source here has none`);
    return new L3FifoQueueModel(tape);
  }
  throw new Error(`unknown queue model "${name}" (expected ${QUEUE_MODELS.map((m) => `"${m}"`).join(' or ')})`);
}
