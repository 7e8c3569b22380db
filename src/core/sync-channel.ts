/**
 * Values handed from one thread to another by index as they are made, which the receiving
 * thread reads synchronously, waiting (`Atomics.wait`) for one not sent yet. The build
 * sends the entries' rendered bodies through one to Eleventy's thread, whose run starts
 * before they are all rendered (site/build/build.ts): a template that reads a body waits
 * for that body only.
 *
 * The receiving end is plain data (a `MessagePort` and a `SharedArrayBuffer`): it goes to
 * the other thread in a `postMessage`, with the port in the transfer list.
 *
 * @module
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/** Slots of the shared signal: how many batches were sent, and whether the sender gave up. */
const SENT = 0;
const FAILED = 1;

/** How long a reader waits at a time before it looks at the failure flag again, ms. */
const WAIT_SLICE_MS = 1000;

/** The receiving end of a channel: sent to the other thread (the port in the transfer list). */
export interface SyncChannelEnd {
  port: MessagePort;
  /** Int32 slots: batches sent, and 1 once the sender failed. */
  signal: SharedArrayBuffer;
}

/** The sending end of a channel ({@link openSyncChannel}). */
export interface SyncChannelSender<T> {
  /** Sends values by index (each index once); readers waiting for one of them go on. */
  send(values: Array<[index: number, value: T]>): void;
  /**
   * Tells readers that the values not sent yet will never come: a reader waiting for one, or
   * asking for one later, gets an error with `message`.
   */
  fail(message: string): void;
  /** Closes this end (after the last send, or a failure); values sent stay readable. */
  close(): void;
}

/** A batch on the wire: values by index, or the sender's failure. */
type Batch<T> = { values: Array<[number, T]> } | { failed: string };

/**
 * Opens a channel. The caller keeps the sender and posts `end` to the reading thread.
 * @returns the sending end, and the end to give to the reader ({@link syncChannelReader}).
 */
export function openSyncChannel<T>(): { sender: SyncChannelSender<T>; end: SyncChannelEnd } {
  const { port1, port2 } = new MessageChannel();
  const signal = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const slots = new Int32Array(signal);
  let closed = false;
  const post = (batch: Batch<T>) => {
    if (closed) return;
    // Posted before the count goes up: a reader that sees the new count finds the batch.
    port1.postMessage(batch);
    Atomics.add(slots, SENT, 1);
    Atomics.notify(slots, SENT);
  };
  return {
    sender: {
      send: (values) => post({ values }),
      fail(message) {
        post({ failed: message });
        Atomics.store(slots, FAILED, 1);
        Atomics.notify(slots, SENT);
      },
      close() {
        closed = true;
        port1.close();
      },
    },
    end: { port: port2, signal },
  };
}

/**
 * The reading side of a channel, in the thread that received `end`: a function giving the
 * value of an index, which blocks this thread until that value has been sent.
 *
 * @throws {Error} (from the function) with the sender's message when the sender failed
 *   before sending the value; `Atomics.wait` is not allowed on a browser's main thread, and
 *   on Node's main thread it blocks the event loop: read on a worker thread.
 */
export function syncChannelReader<T>(end: SyncChannelEnd): (index: number) => T {
  const slots = new Int32Array(end.signal);
  const values = new Map<number, T>();
  let failure: string | undefined;
  /** Takes every batch already sent; false when there was none. */
  const drain = (): boolean => {
    let took = false;
    for (let m = receiveMessageOnPort(end.port); m; m = receiveMessageOnPort(end.port)) {
      took = true;
      const batch = m.message as Batch<T>;
      if ('failed' in batch) failure = batch.failed;
      else for (const [i, v] of batch.values) values.set(i, v);
    }
    return took;
  };
  return (index) => {
    for (;;) {
      if (values.has(index)) return values.get(index)!;
      if (failure !== undefined) throw new Error(failure);
      // The count is read before the port: a batch posted after this read raises the count,
      // and the wait below returns at once.
      const sent = Atomics.load(slots, SENT);
      if (drain()) continue;
      if (Atomics.load(slots, FAILED) === 1) {
        drain();
        failure ??= 'the sender stopped';
        continue;
      }
      Atomics.wait(slots, SENT, sent, WAIT_SLICE_MS);
    }
  };
}
