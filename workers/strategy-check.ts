// Thread of the strategy check (src/strategy-check/check.ts) and of the bench's strategy rows: resolves
// the strategy in this thread (a strategy file is compiled here afresh, so its module starts with
// nothing left by another thread), runs the sessions the job asks for and posts them back.

import { parentPort, workerData } from 'node:worker_threads';
import { type CheckJob, type CheckReply, runJob } from '../src/strategy-check/check-run.ts';
import { resolveStrategy } from '../src/strategy/load.ts';

const job = workerData as CheckJob;
const s = job.spec.strategy;
let reply: CheckReply;
try {
  reply = await runJob(job, await resolveStrategy(s.name, s.hash, s.file));
} catch (e) {
  reply = { runs: [], error: e instanceof Error ? e.message : String(e) };
}
parentPort!.postMessage(reply);
