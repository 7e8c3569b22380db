/**
 * The journal's reconciliation at the start of a push (docs/sync.md#push-guarantees, 1. "At
 * most once"): every POST an earlier run journaled is looked up in the remote list before
 * anything is sent; one that got no answer is waited for until its in-doubt time has passed.
 */
import type { RemoteEntry } from '../../service/schemas.js';
import type { JournalRecord } from '../recovery/journal.js';
import { isOnThisMachine, isRecordedProcessAlive } from '../../core/process-alive.js';
import type { PushCandidate } from './push-plan.js';
import { pend, type Run } from './push-run.js';
import { findRecord, settle } from './push-settle.js';
import { JOURNAL_FILE } from '../store/state.js';

/**
 * Settles the journal records left by earlier runs (see `journal.ts` for their states).
 * Records in doubt are waited for (until their `inDoubtUntil`) and looked up once more.
 *
 * @returns the files settled or held back: not to be sent this run.
 */
export async function reconcileJournal(run: Run, candidates: PushCandidate[], remote: RemoteEntry[], files: string[], rejected: Set<string>): Promise<Set<string>> {
  const out = new Set<string>();
  const records = run.journal.list();
  if (records.length === 0) return out;
  const { dryRun = false } = run.options;
  const byFile = new Map(candidates.map((c) => [c.file, c]));
  const bySlug = new Map(candidates.map((c) => [c.slug, c]));
  const present = new Set(files);

  const decide = async (record: JournalRecord, list: RemoteEntry[], final: boolean): Promise<'doubt' | 'done'> => {
    const c = byFile.get(record.file) ?? bySlug.get(record.slug);
    const found = findRecord(run, record, list);
    if (c && sentByLivingProcess(record)) {
      // Fencing: its sender still runs here (stopped, or holding a lock this run took): never sent twice.
      out.add(c.file);
      const s = record.sender!;
      pend(run.result, c, `a POST started ${record.startedAt} by pid ${s.pid}, which still runs on this machine, is not settled; not sent again (run push once that process ended)`);
      return 'done';
    }
    if (!c && rejected.has(record.file)) {
      // Made invalid since its POST: keep the record until the file is fixed.
      run.result.notes.push(`${record.file}: a POST of an earlier run (slug "${record.slug}") is not settled; it will be once the file is valid again`);
      return 'done';
    }
    if (!c) {
      // The file already carries an identifier (written back before the record was
      // removed), or it is gone. Nothing to send for it.
      if (!present.has(record.file) && found) {
        run.result.notes.push(`${record.file} was removed, but its entry exists on the service as ${found.identifier}: pull mirrors it`);
      }
      if (!dryRun) await run.journal.remove(record.file);
      return 'done';
    }
    if (found) {
      out.add(c.file);
      await settle(run, c, record, found.identifier, found.status, 'reconciled');
      return 'done';
    }
    if (record.state === 'created') {
      // The service confirmed the creation but did not give (or list) the identifier.
      out.add(c.file);
      pend(run.result, c, `the service confirmed creating it (slug "${record.slug}") but it is not in the list; not sent again (fix: find the entry on the service and add its \`identifier:\` to the file, then remove the record from .changelog/${JOURNAL_FILE})`);
      return 'done';
    }
    const inDoubt = record.state === 'sending' && !final && Date.parse(record.inDoubtUntil ?? record.startedAt) > Date.now();
    if (inDoubt) return 'doubt';
    if (!dryRun) await run.journal.remove(record.file); // not created: sent again below
    return 'done';
  };

  const doubt: JournalRecord[] = [];
  for (const record of records) if ((await decide(record, remote, false)) === 'doubt') doubt.push(record);
  if (doubt.length === 0) return out;
  const until = Math.max(...doubt.map((r) => Date.parse(r.inDoubtUntil ?? r.startedAt)));
  if (dryRun) {
    for (const r of doubt) {
      const c = byFile.get(r.file) ?? bySlug.get(r.slug)!;
      out.add(c.file);
      pend(run.result, c, `a POST of an earlier run (${r.startedAt}) got no answer; push waits until ${new Date(until).toISOString()} for the service to finish it, then looks it up again`);
    }
    return out;
  }
  const wait = Math.max(0, until - Date.now());
  run.options.onProgress?.(`waiting ${Math.ceil(wait / 1000)} s: ${doubt.length} POST(s) of an earlier run got no answer and may still be processed by the service`);
  run.result.notes.push(`waited ${Math.ceil(wait / 1000)} s for ${doubt.length} POST(s) of an earlier run that got no answer`);
  await run.sleep(wait);
  const again = await run.options.client.listEntries();
  for (const record of doubt) await decide(record, again, true);
  return out;
}

/** A record in `sending` whose sender is another process that still runs on this machine (docs/sync.md#fencing). */
function sentByLivingProcess(record: JournalRecord): boolean {
  const s = record.sender;
  if (record.state !== 'sending' || !s || s.pid === process.pid) return false;
  return isOnThisMachine(s) && isRecordedProcessAlive(s);
}
