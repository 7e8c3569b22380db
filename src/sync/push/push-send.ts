/**
 * Push's send rounds (docs/sync.md#push-guarantees): each POST journaled first, sent under the
 * rate budget with at most `concurrency` in flight; the POSTs whose answer did not settle
 * them looked up in one listing; what certainly created nothing sent again, up to
 * {@link MAX_SEND_ROUNDS} rounds.
 */
import pLimit from 'p-limit';
import type { ChangelogClient } from '../../service/client.js';
import { ChangelogSyncError, isErrorCode, type ValidationError } from '../../core/errors.js';
import type { CreateEntryInput, RemoteEntry } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import type { EntryFile } from '../../entry/entry-file.js';
import type { JournalRecord } from '../recovery/journal.js';
import { markdownToHtml } from '../../convert/markdown-to-html.js';
import type { PushCandidate } from './push-plan.js';
import { defer, isBudgetRefusal, pend, planItem, type Run } from './push-run.js';
import { findRecord, settle } from './push-settle.js';
import { fenceLost } from './push-fence.js';
import { thisProcess } from '../../core/process-alive.js';
import { stopSending } from './push-stopped.js';

/** Send rounds per run: a POST refused by a 5xx before anything was created is sent again at most this many times minus one. */
const MAX_SEND_ROUNDS = 3;

/** The create request for a file, with the HTML made for it (`push-body.ts`). */
function createInput(entry: EntryFile, slug: string, html = markdownToHtml(entry.body)): CreateEntryInput {
  const d = entry.data;
  const input: CreateEntryInput = { title: d.title, slug, html };
  if (d.publish_at !== undefined) input.publish_at = d.publish_at;
  if (d.is_published !== undefined) input.is_published = d.is_published;
  input.notify_subscribers = d.notify_subscribers ?? false;
  return input;
}

/** A POST whose outcome the answer did not settle. */
interface Unresolved {
  c: PushCandidate;
  record: JournalRecord;
  reason: string;
}

/**
 * Sends the files in rounds (see {@link MAX_SEND_ROUNDS}).
 * @throws the first error that stopped a file's send (a journal or file that cannot be
 *   written), once every send in flight has settled and no other was started after it.
 */
export async function send(run: Run, files: PushCandidate[]): Promise<void> {
  const limit = pLimit(run.options.concurrency ?? 4);
  let round = files;
  let sent = 0;
  for (let n = 1; round.length > 0; n++) {
    const unresolved: Unresolved[] = [];
    const failures: unknown[] = [];
    await Promise.all(
      round.map((c) =>
        limit(async () => {
          try {
            await sendOne(run, c, unresolved);
          } catch (err) {
            failures.push(err);
            stopSending(run, c, err);
          }
          if (n === 1) run.options.onSent?.(++sent, files.length);
        }),
      ),
    );
    if (failures.length > 0) {
      for (const u of unresolved) pend(run.result, u.c, `outcome unknown (${u.reason}), and the run stopped before asking the service; the journal keeps its record: the next run looks it up before sending again`);
      throw failures[0];
    }
    const notCreated = unresolved.length > 0 ? await reconcile(run, unresolved) : [];
    if (n >= MAX_SEND_ROUNDS || run.stop) {
      for (const u of notCreated) pend(run.result, u.c, `not created (${u.reason}); the next run sends it again`);
      return;
    }
    round = notCreated.map((u) => u.c);
  }
}

/** One POST, journaled first. */
async function sendOne(run: Run, c: PushCandidate, unresolved: Unresolved[]): Promise<void> {
  const { result, journal } = run;
  if (!run.stop) run.stop = await fenceLost(run);
  if (run.stop) {
    if (isBudgetRefusal(run.stop)) defer(result, planItem(c), run.stop.message);
    else pend(result, c, `not sent: ${run.stop.message}`);
    return;
  }
  const started = Date.now();
  const record: JournalRecord = {
    file: c.file,
    slug: c.slug,
    title: c.entry.data.title,
    startedAt: new Date(started).toISOString(),
    inDoubtUntil: new Date(started + run.inDoubtMs).toISOString(),
    state: 'sending',
    sender: thisProcess(),
  };
  await journal.put(record);
  failpoint('push:before-post');
  let answer: Awaited<ReturnType<ChangelogClient['createEntry']>>;
  // Checked again once the budget admitted the POST, just before it leaves (a wait for the
  // budget may outlast the lease).
  let fenced: ChangelogSyncError | undefined;
  const beforeSend = async () => {
    fenced = await fenceLost(run);
    if (fenced) throw fenced;
  };
  try {
    answer = await run.options.client.createEntry(createInput(c.entry, c.slug, run.bodies.get(c.file)), { beforeSend });
    failpoint('push:after-post');
  } catch (err) {
    const e = err instanceof ChangelogSyncError ? err : new ChangelogSyncError('E_NETWORK', String((err as Error)?.message ?? err), { cause: err });
    if (fenced) {
      await journal.remove(c.file); // never sent
      run.stop ??= fenced;
      pend(result, c, `not sent: ${fenced.message}`);
    } else if (e.code === 'E_VALIDATION') {
      await journal.remove(c.file); // refused: nothing was created
      const issues = (e as ValidationError).issues ?? [];
      result.rejected.push({ file: c.file, reason: `${c.file}: the service refused it: ${e.message}`, field: issues[0]?.field, issues });
    } else if (e.code === 'E_RATE_LIMITED' || e.code === 'E_AUTH') {
      await journal.remove(c.file); // refused (or never sent): nothing was created
      run.stop ??= e;
      if (isBudgetRefusal(e)) defer(result, planItem(c), e.message);
      else pend(result, c, e.message);
    } else if (e.status !== undefined && e.status >= 200 && e.status < 300) {
      // A 2xx with a body we cannot read: created, identifier unknown.
      const next: JournalRecord = { ...record, state: 'created', reason: e.message };
      await journal.put(next);
      unresolved.push({ c, record: next, reason: e.message });
    } else if (e.status !== undefined) {
      // The service answered (5xx, ...): the list shows whether it created the entry.
      const next: JournalRecord = { ...record, state: 'answered', reason: e.message };
      await journal.put(next);
      unresolved.push({ c, record: next, reason: e.message });
    } else {
      // No answer: lost after commit, a timeout, a reset. The entry may exist, or may still be created.
      unresolved.push({ c, record, reason: e.message });
    }
    return;
  }
  if (answer.identifier) {
    const status = answer.entry?.status ?? expectedStatus(c.entry, run.options.today);
    const next: JournalRecord = { ...record, state: 'created', identifier: answer.identifier, status };
    await journal.put(next).catch((err: unknown) => {
      // Created, and the journal still says `sending`: the next run finds it by its slug.
      result.pending.push({ ...planItem(c), identifier: answer.identifier, reason: `created on the service as ${answer.identifier}, but the identifier was neither journaled nor written to the file (${(err as Error).message}); the next run finds it by its slug and writes it, sending nothing` });
      throw err;
    });
    failpoint('push:after-journal-created');
    await settle(run, c, next, answer.identifier, status, 'created');
  } else {
    const next: JournalRecord = { ...record, state: 'created', reason: 'the service answered without an identifier' };
    await journal.put(next);
    unresolved.push({ c, record: next, reason: next.reason! });
  }
}

/**
 * Looks up a round's unresolved POSTs: one `GET /api/entries` (and one more after waiting, for
 * POSTs without an answer that may be in progress).
 * @returns the POSTs that certainly created nothing: safe to send again.
 */
async function reconcile(run: Run, unresolved: Unresolved[]): Promise<Unresolved[]> {
  const notCreated: Unresolved[] = [];
  const look = async (items: Unresolved[], final: boolean): Promise<Unresolved[]> => {
    let list: RemoteEntry[];
    try {
      list = await run.options.client.listEntries();
    } catch (err) {
      // The journal records stay: the next run looks them up before sending anything.
      for (const u of items) pend(run.result, u.c, `outcome unknown (${u.reason}), and the service could not be asked (${(err as Error).message}); the next run checks before sending again`);
      if (isErrorCode(err, 'E_AUTH')) run.stop ??= err;
      return [];
    }
    const doubt: Unresolved[] = [];
    for (const u of items) {
      const found = findRecord(run, u.record, list);
      if (found) await settle(run, u.c, u.record, found.identifier, found.status, 'reconciled');
      else if (u.record.state === 'created') {
        pend(run.result, u.c, `the service confirmed creating it (${u.reason}) but "${u.record.slug}" is not in its list; not sent again, the next run looks again`);
      } else if (u.record.state === 'sending' && !final && Date.parse(u.record.inDoubtUntil!) > Date.now()) doubt.push(u);
      else {
        await run.journal.remove(u.c.file);
        notCreated.push(u);
      }
    }
    return doubt;
  };
  const doubt = await look(unresolved, false);
  if (doubt.length > 0) {
    const wait = Math.max(0, Math.max(...doubt.map((u) => Date.parse(u.record.inDoubtUntil!))) - Date.now());
    run.options.onProgress?.(`waiting ${Math.ceil(wait / 1000)} s: ${doubt.length} POST(s) got no answer and may still be processed by the service`);
    await run.sleep(wait);
    await look(doubt, true);
  }
  return notCreated;
}

/** The status the service gives on creation (spec "States and transitions"), when it did not say. */
function expectedStatus(entry: EntryFile, today = new Date().toISOString().slice(0, 10)): string {
  if (entry.data.is_published !== true) return 'draft';
  return entry.data.publish_at !== undefined && entry.data.publish_at > today ? 'scheduled' : 'published';
}
