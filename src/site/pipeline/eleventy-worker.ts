/**
 * The worker thread of eleventy-thread.ts: loads Eleventy at once, runs it once when the build
 * sends the run, and answers with what it wrote or the error's message.
 */
import { parentPort } from 'node:worker_threads';
import { preloadEleventy, runEleventy, type EleventyRun } from './eleventy-run.js';

preloadEleventy();
parentPort?.once('message', (run: EleventyRun) => {
  // The site data arrives as a copy, no longer frozen: frozen, Eleventy hands it to every
  // page as it is instead of deep-copying it for each.
  if (run.pluginOptions.siteData) Object.freeze(run.pluginOptions.siteData);
  runEleventy(run).then(
    (written) => parentPort?.postMessage({ written }),
    (err: Error) => parentPort?.postMessage({ message: err.message }),
  );
});
