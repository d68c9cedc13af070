// Every queue model the factory knows (QUEUE_MODELS) runs the port's conformance suite
// (test/conformance/queue-model.ts): a model added to the list runs it without a line here. The
// power model also runs it at exponents other than the default, where its arithmetic differs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { QUEUE_MODELS } from '../../../src/exchange/queue-model.ts';
import { queueModelFromName } from '../../../src/exchange/queue-model-factory.ts';
import { describeQueueModel } from '../../conformance/queue-model.ts';

for (const name of QUEUE_MODELS) describeQueueModel(name, (tape) => queueModelFromName(name, 2, tape));
for (const n of [0.5, 1, 3]) describeQueueModel('power', (tape) => queueModelFromName('power', n, tape));

test('the factory refuses a name outside QUEUE_MODELS, naming the ones it knows', () => {
  assert.throws(() => queueModelFromName('lifo'), /unknown queue model "lifo" \(expected "power" or "risk_averse" or "l3_fifo"\)/);
});

test.run();
