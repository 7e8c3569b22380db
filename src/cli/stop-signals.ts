/**
 * SIGTERM and SIGINT while `push`, `sync` (docs/sync.md#the-push-lease) or `subscribers import`
 * and `remove` (docs/subscribers.md) send: an `AbortSignal` stops the engine; no request starts
 * after it, those in flight settle (journal, write-back, the import's progress record), the lease
 * and lock are released, the report printed, and the exit status is 128 + the signal's number (143,
 * 130). A second one ends the process at once: the journal, flushed before every POST, lets the next
 * run settle what was in flight.
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
 * Listens for SIGTERM and SIGINT until disposed: the first aborts {@link StopListener.signal}, said on stderr.
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

/** Whether a stop signal came while a command listened: a run over several workspaces starts no next one. */
export function stopReceived(): boolean {
  return received !== undefined;
}

/** After the command's report: when it was told to stop, the exit status is 128 + the signal's number, whatever its own. */
export function endIfStopped(): void {
  if (received) process.exitCode = 128 + constants.signals[received];
}

/** Resolves on the first SIGINT or SIGTERM: how a command that serves (`dev`, `emulator`) runs until Ctrl-C. */
export function untilStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
