/**
 * The worker thread that writes a built search index's files (see search-index-files.ts).
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writeIndexFiles, type IndexFilesReply, type IndexFilesTask } from './search-index-files.js';

const { dir, files } = workerData as IndexFilesTask;
let reply: IndexFilesReply;
try {
  writeIndexFiles(dir, files);
  reply = { ok: true };
} catch (err) {
  const code = (err as NodeJS.ErrnoException).code;
  reply = { ok: false, message: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) };
}
parentPort?.postMessage(reply);
