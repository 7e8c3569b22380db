/**
 * SIGTERM (a cancelled job, `kill`) and SIGINT (Ctrl-C) while `push` or `sync` sends
 * (docs/sync.md#the-push-lease), or `subscribers import` and `subscribers remove` send their
 * batches (docs/subscribers.md): the engine is told to stop through an `AbortSignal`; no
 * request starts after it, those in flight settle (journal, write-back, the import's progress
 * record), the push lease and the lock are released, the report is printed, and the process exits with the status a shell
 * gives a program that signal ended, 128 + its number (143 for SIGTERM, 130 for SIGINT). A
 * second one of the same signal ends the process at once (the journal, flushed before every
 * POST, lets the next run settle what was in flight then).
 *
 * @module
 */
import { constants } from 'node:os';
import type { Reporter } from './output/reporter.js';

/** The first stop signal this process received while a command listened, if any. */
let received: NodeJS.Signals | undefined;

/** A command's listening for SIGTERM and SIGINT ({@link listenForStop}). */
export interface StopListener {
  /** Aborted, with the signal's name as its reason, on the first SIGTERM or SIGINT. */
  signal: AbortSignal;
  /** Stops listening: a signal from then on has its default effect. */
  dispose(): void;
}

/**
 * Listens for SIGTERM and SIGINT until disposed: the first aborts {@link StopListener.signal}
 * and is said on stderr.
 * @param settling what the command still does once told to stop, for that line.
 */
export function listenForStop(reporter: Reporter, settling: string): StopListener {
  const stop = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    received ??= name;
    reporter.warn(`${name}: stopping: ${settling}; ${name === 'SIGINT' ? 'Ctrl-C' : name} again ends the process at once`);
    stop.abort(name);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return {
    signal: stop.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

/**
 * Once the command is done and has printed its report: when it was told to stop, its exit
 * status is 128 + the signal's number, whatever the command's own.
 */
export function endIfStopped(): void {
  if (received) process.exitCode = 128 + constants.signals[received];
}
