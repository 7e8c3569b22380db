/**
 * The three reads a pull starts with (docs/service-interface.md#endpoints, endpoints 1, 2 and 6: the workspace,
 * every entry, the tags), sent at once. Separate from `pull.ts` so that a command can send
 * them before it loads the mirror's modules: the service's answer for 10,000 entries takes
 * longer than loading them.
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
}

/**
 * Sends the three reads. A failure is not reported as unhandled: it is thrown where the
 * read is awaited.
 */
export function startServiceReads(client: ChangelogClient): ServiceReads {
  const reads: ServiceReads = { workspace: client.getWorkspace(), entries: client.listEntries(), tags: client.listTags() };
  for (const r of [reads.workspace, reads.entries, reads.tags]) r.catch(() => undefined);
  return reads;
}
