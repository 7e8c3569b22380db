/**
 * The worker thread of eleventy-run.ts: runs Eleventy once and reports how it went.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runEleventy, type EleventyRun } from './eleventy-run.js';

runEleventy(workerData as EleventyRun).then(
  (written) => parentPort?.postMessage({ ok: true, written }),
  (err: Error) => parentPort?.postMessage({ ok: false, message: err.message }),
);
