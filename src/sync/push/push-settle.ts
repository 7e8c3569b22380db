/**
 * Settling a pushed file (docs/sync.md#push-guarantees, 2. "Nothing lost"): the remote entry a
 * journal record created, found in a listing, and the write-back of its identifier, status
 * and slug into the file, recorded in the state, its journal record removed.
 */
import type { RemoteEntry } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import type { JournalRecord } from '../recovery/journal.js';
import type { PushCandidate } from './push-plan.js';
import { planItem, type PushedItem, type Run } from './push-run.js';
import { writeBack } from './write-back.js';

/**
 * The remote entry a journal record created, if the list has it: by identifier when
 * known, else by slug among the entries no local file mirrors.
 */
export function findRecord(run: Run, record: JournalRecord, list: RemoteEntry[]): RemoteEntry | undefined {
  if (record.identifier) {
    return list.find((r) => r.identifier === record.identifier) ?? ({ identifier: record.identifier, status: record.status ?? 'draft' } as RemoteEntry);
  }
  return list.find((r) => r.slug === record.slug && !run.claimed.has(r.identifier));
}

/**
 * Settles a file whose entry exists: identifier, status and slug written back, state recorded,
 * journal record removed. A failed write-back keeps the record with the identifier: the next run
 * writes it and never sends the file again.
 */
export async function settle(run: Run, c: PushCandidate, record: JournalRecord | undefined, identifier: string, status: string | undefined, how: PushedItem['how']): Promise<void> {
  const { result, journal } = run;
  run.claimed.add(identifier);
  const item: PushedItem = { ...planItem(c), slug: record?.slug ?? c.slug, identifier, status, how, reconciled: how !== 'created' };
  if (run.options.dryRun) {
    result.pushed.push(item);
    return;
  }
  try {
    await writeBack(run.options.contentDir, c.file, identifier, status, item.slug, run.state);
  } catch (err) {
    result.pending.push({
      ...planItem(c),
      identifier,
      reason: `created on the service as ${identifier}, but the identifier could not be written to the file (${(err as Error).message}); fix the file and push again: it writes the identifier and sends nothing`,
    });
    await journal.put({
      ...(record ?? { file: c.file, slug: item.slug, title: c.entry.data.title, startedAt: new Date().toISOString() }),
      state: 'created',
      identifier,
      status,
    });
    return;
  }
  failpoint('push:after-write-back');
  // Listed as soon as its identifier is in the file, so that an error removing the journal
  // record (a full disk) still reports it as created and written back.
  result.pushed.push(item);
  if (record) {
    await journal.remove(record.file);
    failpoint('push:after-journal-remove');
  }
}
