/**
 * Worker thread of the conversion pool (see `convert-pool.ts`): renders a chunk of mirror
 * files to their texts. Loaded by piscina from `dist/sync/pull/convert-worker.js`.
 *
 * @module
 */
import { renderJob, type MirrorJob } from './mirror-writer.js';

/** Renders each job; a failure is returned in place, so one entry never fails the chunk. */
export default function renderChunk(jobs: MirrorJob[]): Array<ReturnType<typeof renderJob>> {
  return jobs.map(renderJob);
}
