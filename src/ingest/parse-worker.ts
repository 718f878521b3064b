/** A worker thread of the parallel reader (read-parallel.ts): a RangeParser behind a message port. */
import { parentPort, workerData } from 'node:worker_threads';
import type { ToWorker } from './read-parallel.js';
import { RangeParser, type RangeParserInit } from './range-parser.js';

const port = parentPort!;
const parser = new RangeParser(workerData as RangeParserInit, (msg, transfer) => port.postMessage(msg, transfer));
port.on('message', (m: ToWorker) => {
  parser.handle(m);
  if (m.type === 'close') port.close();
});
