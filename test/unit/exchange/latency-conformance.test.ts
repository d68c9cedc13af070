// The latency models run the port's conformance suite (test/conformance/latency.ts): the one
// both drivers build (seededLatency, src/exchange/venue.ts) and the class it builds.
import { test } from 'uvu';
import { Rng } from '../../../src/core/rng.ts';
import { SeededLatency } from '../../../src/exchange/latency.ts';
import { seededLatency } from '../../../src/exchange/venue.ts';
import { describeLatency } from '../../conformance/latency.ts';

describeLatency('seededLatency (the venue factory)', seededLatency);
describeLatency('SeededLatency', (p, seed) => new SeededLatency(p, new Rng(seed)));

test.run();
