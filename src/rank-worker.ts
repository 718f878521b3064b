/** A worker of rank-pool.ts: reads the traces it is sent, one at a time, and posts each one's summary. */
import { parentPort } from 'node:worker_threads';
import { isKinetoscopeError } from './core/errors.js';
import { summariseFile, type FromRankWorker } from './rank-pool.js';

parentPort!.on('message', async (job: { index: number; file: string }) => {
  let reply: FromRankWorker;
  try {
    reply = { type: 'done', index: job.index, summary: await summariseFile(job.file) };
  } catch (e) {
    reply = isKinetoscopeError(e)
      ? { type: 'failed', index: job.index, code: e.code, message: e.message }
      : { type: 'failed', index: job.index, message: (e as Error)?.message ?? String(e) };
  }
  parentPort!.postMessage(reply);
});
