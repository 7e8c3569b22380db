/**
 * The three reads a pull starts with (docs/service-interface.md#endpoints 1, 2 and 6), sent at
 * once, before a command loads the mirror's modules (the answer for 10,000 entries takes longer
 * than loading them). Whoever starts them ends them: a job that stops early calls
 * {@link ServiceReads.cancel}, so no read of it is open, retried, booked or written afterwards.
 */
import type { ChangelogClient } from './client.js';
import type { RemoteEntry, Tag, Workspace } from './schemas.js';

/** The reads in flight. Each rejects with the client's error (`E_AUTH`, `E_NETWORK`, ...). */
export interface ServiceReads {
  workspace: Promise<Workspace>;
  entries: Promise<RemoteEntry[]>;
  tags: Promise<Tag[]>;
  /**
   * Cancels the reads in flight (request, backoff, wait for the budget) and resolves once all
   * three settled: none sends, books or writes anything after. Never rejects.
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
