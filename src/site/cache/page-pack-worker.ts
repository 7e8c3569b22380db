/**
 * The worker thread of one job on the page cache's pack (page-pack.ts): copying its pages
 * into the site, or writing a new pack.
 *
 * @module
 */
import { answerTask } from '../../core/threads.js';
import { copyPages, writePack, type PackJob } from './page-pack.js';

answerTask((job: PackJob) => (job.kind === 'copy' ? copyPages(job) : writePack(job)));
