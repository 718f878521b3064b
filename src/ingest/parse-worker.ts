/**
 * A worker thread of the parallel reader (read-parallel.ts): a RangeParser behind a message
 * port. Once it has the plan it claims and parses ranges one after another, handling messages
 * (continue / end / drop) between two ranges, until no range is left.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ToWorker } from './read-parallel.js';
import { CLAIM_NONE, CLAIM_WAIT, giveUpNoDetachAssumption, RangeParser, type RangeParserInit } from './range-parser.js';

giveUpNoDetachAssumption();
const port = parentPort!;
const parser = new RangeParser(workerData as RangeParserInit, (msg, transfer) => port.postMessage(msg, transfer));
const loop = (): void => {
  const k = parser.parseNext();
  if (k === CLAIM_NONE) return;
  if (k === CLAIM_WAIT) parser.waitForLimit(loop);
  else setImmediate(loop);
};
port.on('message', (m: ToWorker) => {
  parser.handle(m);
  if (m.type === 'plan') setImmediate(loop);
  if (m.type === 'close') port.close();
});
