// The channel that hands values by index to another thread (src/core/sync-channel.ts), with
// the reader on a real worker thread (the compiled module, as the build runs it): whatever
// the order and the batches values are sent in, and whether the reader asks before or after,
// each read gives the value sent; a reader waiting for a value that will not come gets the
// sender's failure instead of waiting for ever.
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openSyncChannel, type SyncChannelEnd } from '../../src/core/sync-channel.js';

const MODULE = new URL('../../dist/core/sync-channel.js', import.meta.url).href;

/** Reads `order` on a worker thread: each value, or the message of what the read threw. */
function readOnThread(end: SyncChannelEnd, order: number[]): Promise<Array<string | { error: string }>> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(({ syncChannelReader }) => {
      const read = syncChannelReader(workerData.end);
      parentPort.postMessage(workerData.order.map((i) => { try { return read(i); } catch (err) { return { error: err.message }; } }));
    });`;
  const worker = new Worker(code, { eval: true, workerData: { module: MODULE, end, order }, transferList: [end.port] });
  return new Promise((resolve, reject) => {
    // A reader left waiting (a value lost) is ended, and the test fails, instead of hanging.
    const deadline = setTimeout(() => void worker.terminate().then(() => reject(new Error(`the reader of ${JSON.stringify(order)} was still waiting after 20 s`))), 20_000);
    worker.once('message', (m) => {
      clearTimeout(deadline);
      void worker.terminate().then(() => resolve(m as Array<string | { error: string }>));
    });
    worker.once('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
  });
}

/** A turn of this thread's event loop, so that the reader runs between two sends. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('a sync channel', () => {
  it('gives each index the value sent for it, whatever the order of sends, batches and reads', async () => {
    const plan = fc.integer({ min: 1, max: 40 }).chain((n) =>
      fc.record({
        sends: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        reads: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        batch: fc.integer({ min: 1, max: 8 }),
        waits: fc.boolean(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(plan, async ({ sends, reads, batch, waits }) => {
        const { sender, end } = openSyncChannel<string>();
        const read = readOnThread(end, reads);
        for (let k = 0; k < sends.length; k += batch) {
          // With `waits`, the reader is likely to ask before the value is there, and wait.
          if (waits) await turn();
          sender.send(sends.slice(k, k + batch).map((i) => [i, `value ${i}`]));
        }
        expect(await read).toEqual(reads.map((i) => `value ${i}`));
        sender.close();
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  it('a value never sent: the reader gets the failure, and the values sent before it still', async () => {
    const { sender, end } = openSyncChannel<string>();
    sender.send([[0, 'first']]);
    const read = readOnThread(end, [0, 1, 0]);
    await turn();
    sender.fail('the build stopped: EIO');
    expect(await read).toEqual(['first', { error: 'the build stopped: EIO' }, 'first']);
    sender.close();
  });

  it('a reader that asks after the failure gets it too', async () => {
    const { sender, end } = openSyncChannel<string>();
    sender.fail('the build stopped');
    expect(await readOnThread(end, [3])).toEqual([{ error: 'the build stopped' }]);
    sender.close();
  });
});
