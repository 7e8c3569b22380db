/**
 * The data thread (data-thread.ts, `startDataThread`): loads the entry parser and the body
 * renderer at once, then answers each task: entry files read and parsed, or bodies rendered.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { readEntryFiles } from '../../entry/entry-files.js';
import { renderBody } from '../render/sanitize.js';
import type { DataReply, DataTask, ParsedFile } from './data-thread.js';

/** The answer to one task. */
async function answer(task: DataTask): Promise<DataReply> {
  try {
    if (task.kind === 'render') return { id: task.id, html: task.bodies.map((b) => renderBody(b)) };
    const files = await readEntryFiles(task.contentDir, task.rels);
    return {
      id: task.id,
      files: files.map((f): ParsedFile => (f.entry && !f.error ? { rel: f.rel, hash: f.hash, raw: f.raw, entry: f.entry } : { rel: f.rel, failed: true })),
    };
  } catch (err) {
    return { id: task.id, error: (err as Error).message };
  }
}

// One task at a time, answered in the order sent.
let queue = Promise.resolve();
parentPort?.on('message', (task: DataTask) => {
  queue = queue.then(async () => parentPort?.postMessage(await answer(task)));
});
