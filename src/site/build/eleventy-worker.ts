/**
 * The worker thread of eleventy-run.ts: loads Eleventy at once, runs it once when the
 * build sends the run (`startEleventyThread`), and reports how it went.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { preloadEleventy, runEleventy, type EleventyRun } from './eleventy-run.js';

preloadEleventy();
parentPort?.once('message', (run: EleventyRun) => {
  runEleventy(run).then(
    (written) => parentPort?.postMessage({ ok: true, written }),
    (err: Error) => parentPort?.postMessage({ ok: false, message: err.message }),
  );
});
