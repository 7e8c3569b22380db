/**
 * The worker thread that writes a built search index's files (see search-index-files.ts).
 *
 * @module
 */
import { answerTask } from '../../core/threads.js';
import { writeIndexFiles, type IndexFilesTask } from './search-index-files.js';

answerTask((task: IndexFilesTask) => writeIndexFiles(task.dir, task.files));
