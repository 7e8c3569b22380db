/**
 * The writes of a file rewritten whole as what it holds changes (the push journal, the request
 * ledger, the image record): one at a time, so that an older snapshot never lands last, and the
 * writes asked for while one waits share it (it writes what is there when it starts).
 */

/**
 * A queue of `write`.
 * @returns a function that resolves once a write that started after its call has finished, and
 *   rejects with that write's error.
 */
export function writeQueue(write: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return () => {
    queued ??= running.then(async () => {
      queued = undefined;
      await write();
    });
    running = queued.catch(() => undefined);
    return queued;
  };
}
