/**
 * The report's second thread (report-offload.ts): receives a serialized model, computes and
 * renders the sections that read nothing the others compute (report/html/report-data.ts
 * OFFLOADED_SECTIONS), and posts their HTML back.
 */
import { parentPort } from 'node:worker_threads';
import { deserializeModel } from './model-transfer.js';
import { buildOffloadedParts } from './report/html/report-data.js';
import { renderOffloaded } from './report/html/render-report.js';
import type { FromReportWorker } from './report-offload.js';

parentPort!.on('message', (bytes: Uint8Array) => {
  let reply: FromReportWorker;
  try {
    reply = { ok: true, offloaded: renderOffloaded(buildOffloadedParts(deserializeModel(bytes))) };
  } catch (e) {
    reply = { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
