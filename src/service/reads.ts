/**
 * The three reads a pull starts with (docs/service-interface.md#endpoints, endpoints 1, 2 and 6: the workspace,
 * every entry, the tags), sent at once. Separate from `pull.ts` so that a command can send
 * them before it loads the mirror's modules: the service's answer for 10,000 entries takes
 * longer than loading them.
 *
 * Whoever starts them ends them: a job that stops early (one read failed, the lock was
 * refused) calls {@link ServiceReads.cancel} before it returns, so that no read of it is still
 * open, retried, booked in the rate budget or written to its ledger afterwards.
 *
 * @module
 */
import type { ChangelogClient } from './client.js';
import type { RemoteEntry, Tag, Workspace } from './schemas.js';

/** The reads in flight. Each rejects with the client's error (`E_AUTH`, `E_NETWORK`, ...). */
export interface ServiceReads {
  workspace: Promise<Workspace>;
  entries: Promise<RemoteEntry[]>;
  tags: Promise<Tag[]>;
  /**
   * Cancels the reads still in flight (a request open, a backoff, a wait for the budget), and
   * resolves once all three have settled: from then on none sends, books or writes anything.
   * Reads that settled already keep their outcome; after a complete job it changes nothing.
   * Never rejects.
   */
  cancel(): Promise<void>;
}

/**
 * Sends the three reads. A failure is not reported as unhandled: it is thrown where the
 * read is awaited. The caller calls `cancel()` when it is done with them (in a `finally`).
 */
export function startServiceReads(client: ChangelogClient): ServiceReads {
  const stop = new AbortController();
  const { signal } = stop;
  const workspace = client.getWorkspace({ signal });
  const entries = client.listEntries({ signal });
  const tags = client.listTags({ signal });
  const all = [workspace, entries, tags];
  for (const r of all) r.catch(() => undefined);
  return {
    workspace,
    entries,
    tags,
    async cancel() {
      stop.abort(new Error('the job that sent this read has stopped'));
      await Promise.allSettled(all);
    },
  };
}
