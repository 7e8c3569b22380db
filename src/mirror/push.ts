/**
 * Push: create remote entries from new local files (docs/sync.md#sync-semantics;
 * docs/service-interface.md#endpoints, endpoint 5). Only files without `identifier` are sent.
 *
 * The guarantees (docs/sync.md#push-guarantees), and where each is kept:
 *
 * 1. **At most once.** The content directory's lock (`lock.ts`) keeps a second push out.
 *    Every POST is journaled and flushed first (`journal.ts`). A journaled POST of an
 *    earlier run, and every POST of this run whose answer was lost, failed or came without
 *    an identifier, is looked up in the remote list by slug (one `GET /api/entries` for
 *    all of them) before anything is sent again. A POST that got no answer at all may
 *    still be processed by the service: it is not taken as "not created" before its
 *    in-doubt time has passed (twice the request timeout), however long that means waiting.
 *    Push always sends an explicit slug (`push-plan.ts`), so that this match is exact.
 * 2. **Nothing lost.** Every candidate file ends the run pushed (identifier written back,
 *    atomically, on the file's current content), pending (with its reason), deferred, or
 *    rejected (with file, field and fix).
 * 3. **Within the limits.** Every request goes through the client's `RateBudget`;
 *    `p-limit` bounds how many are in flight; what the day's budget cannot cover is
 *    deferred, oldest first.
 * 4. **Validated before sending** (`push-plan.ts`).
 * 5. **Every answer shape**: the entry, an identifier only, `{success: true}`, an empty
 *    201: the identifier is taken from the answer, else found by the batched list.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { ChangelogClient } from '../api/client.js';
import { ChangelogSyncError, isErrorCode, type ValidationError } from '../errors.js';
import type { CreateEntryInput, RemoteEntry } from '../api/schemas.js';
import { markdownToHtml } from './markdown-html.js';
import { failpoint } from '../failpoint.js';
import { type EntryFile } from './entry-file.js';
import { Journal, type JournalRecord } from './journal.js';
import { readEntryFiles } from './local-index.js';
import { acquireLock, type HeldLock } from './lock.js';
import { readServiceTagNames } from './entry-problems.js';
import { carriedSlugRejection, matchUnclaimed, planLocal, type PushCandidate, type PushRejection } from './push-plan.js';
import { JOURNAL_FILE, loadState, saveState, type SyncState } from './state.js';
import { removeLeftoverTempFiles } from './temp-files.js';
import { assertWorkspaceBinding } from './workspace-binding.js';
import { writeBack } from './write-back.js';

/** Send rounds per run: a POST refused by a 5xx before anything was created is sent again at most this many times minus one. */
const MAX_SEND_ROUNDS = 3;

/** Options of {@link push}. */
export interface PushOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Print the plan; send nothing, write nothing. */
  dryRun?: boolean;
  /** Requests in flight at once (p-limit). Default 4. */
  concurrency?: number;
  /** Today as `YYYY-MM-DD` (tests); default the UTC date. */
  today?: string;
  /**
   * How long (ms) after its start a POST that got no answer may still be processed by the
   * service. Default twice the client's request timeout.
   */
  inDoubtMs?: number;
  /** Progress lines (a wait, a recovered lock). */
  onProgress?: (message: string) => void;
  /** Called after each POST of the first round settles: `done` of `total` files sent (for a progress bar). */
  onSent?: (done: number, total: number) => void;
  /** Sleep; default a real timer (tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** A file that will be (or was) sent. */
export interface PushPlanItem {
  file: string;
  title: string;
  slug: string;
  /** True when the slug is derived from the title (written back to the file once pushed). */
  derived_slug: boolean;
  publish_at?: string;
  is_published: boolean;
}

/** One file's outcome. */
export interface PushedItem extends PushPlanItem {
  identifier: string;
  status?: string;
  /**
   * `created`: created by this run, identifier from the answer.
   * `reconciled`: created by this run or an earlier one whose answer was lost (or had no
   *   identifier), found by slug in the remote list; not sent again.
   * `adopted`: a remote entry no local file mirrored, with this file's slug, title and
   *   date: a push whose write-back and journal were both lost; not sent again.
   */
  how: 'created' | 'reconciled' | 'adopted';
  /** True for `reconciled` and `adopted`: the entry existed and was not sent again. */
  reconciled: boolean;
}

/** What a push did (or, with `dryRun`, would do). */
export interface PushResult {
  /** Files to send this run or deferred, in order (oldest first). */
  plan: PushPlanItem[];
  pushed: PushedItem[];
  /** Not settled this run; tried again by the next (with the reason). Includes the deferred. */
  pending: Array<PushPlanItem & { reason: string }>;
  /** Not sent because the day's request budget cannot cover them (a subset of `pending`). */
  deferred: PushPlanItem[];
  /** Invalid; not sent until fixed. */
  rejected: PushRejection[];
  /** Requests the plan needs at most: one POST per file to send, plus one `GET /api/entries` should an answer be lost or lack the identifier. */
  requests: number;
  /** Earliest start times (ISO) of the POSTs under the rate budget. */
  schedule: string[];
  /** Requests left in the day's budget after this run (or, for a dry run, now). */
  dayRemaining: number;
  /** Things worth saying: a stale lock taken over, a wait for POSTs in doubt, leftovers removed. */
  notes: string[];
  dryRun: boolean;
}

/** The create request for a file. */
function createInput(entry: EntryFile, slug: string): CreateEntryInput {
  const d = entry.data;
  const input: CreateEntryInput = { title: d.title, slug, html: markdownToHtml(entry.body) };
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

/** Everything one run shares. */
interface Run {
  options: PushOptions;
  client: ChangelogClient;
  journal: Journal;
  state: SyncState;
  /** Identifiers of remote entries that local files mirror (or that this run wrote back). */
  claimed: Set<string>;
  result: PushResult;
  lock: HeldLock | undefined;
  inDoubtMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Set when sending must stop (auth refused, budget spent, lock lost). */
  stop?: ChangelogSyncError;
  progress(message: string): void;
}

/**
 * Pushes new local entry files.
 *
 * @throws {ChangelogSyncError} `E_LOCKED` when another process pushes to this content
 *   directory; `E_WORKSPACE_MISMATCH`, `E_AUTH` (nothing sent then), or a failure of the
 *   initial remote listing. Failures of single POSTs are reported per file, not thrown;
 *   an `E_AUTH` met while sending is thrown after the report is complete on disk.
 */
export async function push(options: PushOptions): Promise<PushResult> {
  const dryRun = options.dryRun ?? false;
  const result: PushResult = { plan: [], pushed: [], pending: [], deferred: [], rejected: [], requests: 0, schedule: [], dayRemaining: 0, notes: [], dryRun };
  const lock = dryRun ? undefined : await acquireLock(options.stateDir, 'push');
  try {
    if (lock?.recovered) {
      const r = lock.recovered;
      const note = 'unknown' in r ? 'took over a stale lock left by a process that died' : `took over a stale lock left by pid ${r.pid} on host "${r.host}" (${r.command}, since ${r.startedAt}), which is gone`;
      result.notes.push(note);
      options.onProgress?.(note);
    }
    await pushLocked(options, result, lock);
  } finally {
    result.dayRemaining = options.client.budget.dayRemaining();
    await lock?.release();
  }
  return result;
}

async function pushLocked(options: PushOptions, result: PushResult, lock: HeldLock | undefined): Promise<void> {
  const { client, contentDir, stateDir, dryRun = false } = options;
  if (!dryRun) {
    const left = await removeLeftoverTempFiles(contentDir, stateDir);
    if (left.length > 0) result.notes.push(`removed ${left.length} temporary file(s) left by an interrupted write: ${left.join(', ')}`);
  }

  // 1. Read and validate every local file first.
  const files = await readEntryFiles(contentDir);
  const journal = await Journal.open(stateDir);
  const serviceTags = readServiceTagNames(contentDir);
  const local = planLocal(files, serviceTags);
  if (local.candidates.length === 0 && journal.list().length === 0) {
    result.rejected.push(...local.rejected);
    return;
  }

  // 2. One remote listing: slugs in use, mirrored entries, reconciliation.
  let remote: RemoteEntry[];
  try {
    const workspace = await client.getWorkspace();
    await assertWorkspaceBinding(contentDir, workspace);
    remote = await client.listEntries();
  } catch (err) {
    if (!isBudgetRefusal(err)) throw err;
    // The day's budget cannot even list: everything valid is deferred, nothing is lost.
    result.rejected.push(...local.rejected);
    result.plan = local.candidates.map(planItem);
    for (const p of result.plan) defer(result, p, (err as Error).message);
    return;
  }
  result.rejected.push(...local.rejected);
  const run: Run = {
    options,
    client,
    journal,
    state: await loadState(stateDir),
    claimed: local.claimed,
    result,
    lock,
    inDoubtMs: options.inDoubtMs ?? 2 * client.timeoutMs,
    sleep: options.sleep ?? ((ms) => sleep(ms)),
    progress: (m) => options.onProgress?.(m),
  };

  try {
    // 3. POSTs journaled by earlier runs.
    const settled = await reconcileJournal(run, local.candidates, remote, files.map((f) => f.rel), new Set(local.rejected.map((r) => r.file)));

    // 4. Slugs used remotely by entries no local file mirrors: adopt or reject.
    const bySlug = indexBySlug(remote);
    const toSend: PushCandidate[] = [];
    for (const c of local.candidates) {
      if (settled.has(c.file)) continue;
      // A slug held remotely by an entry a local file carries (one renamed on the service
      // since the last pull, or whose file does not parse): the service would rename this
      // one, and the write-back would record a slug it does not have.
      const carried = (bySlug.get(c.slug) ?? []).find((r) => run.claimed.has(r.identifier));
      if (carried) {
        result.rejected.push(carriedSlugRejection(c, carried, local.carriers.get(carried.identifier) ?? '?'));
        continue;
      }
      const used = (bySlug.get(c.slug) ?? []).filter((r) => !run.claimed.has(r.identifier));
      if (used.length === 0) {
        toSend.push(c);
        continue;
      }
      const match = matchUnclaimed(c, used);
      if ('reject' in match) result.rejected.push(match.reject);
      else await settle(run, c, undefined, match.adopt.identifier, match.adopt.status, 'adopted');
    }

    // 5. The plan, oldest first; what the day cannot cover is deferred (one list request kept for reconciliation).
    result.plan = toSend.map(planItem);
    const fits = Math.max(0, client.budget.dayRemaining() - 1);
    const now = toSend.slice(0, fits);
    for (const c of toSend.slice(fits)) defer(result, planItem(c), 'the day\'s request budget cannot cover it');
    result.requests = now.length + (now.length > 0 ? 1 : 0);
    result.schedule = client.budget.schedule(now.length).map((t) => new Date(t).toISOString());
    if (dryRun) return;
    failpoint('push:after-plan');

    // 6. Send, in rounds: what a 5xx refused before creating anything is sent again.
    await send(run, now);
  } finally {
    // Report in plan order (oldest first), not in the order answers came back.
    const order = new Map(local.candidates.map((c, i) => [c.file, i]));
    const byPlan = (a: { file: string }, b: { file: string }) => (order.get(a.file) ?? -1) - (order.get(b.file) ?? -1);
    result.pushed.sort(byPlan);
    result.pending.sort(byPlan);
    if (!dryRun) {
      failpoint('push:before-state-save');
      await saveState(stateDir, run.state);
      failpoint('push:after-state-save');
    }
  }
  if (run.stop && isErrorCode(run.stop, 'E_AUTH')) throw run.stop;
}

/**
 * Settles the journal records left by earlier runs (see `journal.ts` for their states).
 * Records in doubt are waited for (until their `inDoubtUntil`) and looked up once more.
 *
 * @returns the files settled or held back: not to be sent this run.
 */
async function reconcileJournal(run: Run, candidates: PushCandidate[], remote: RemoteEntry[], files: string[], rejected: Set<string>): Promise<Set<string>> {
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
  run.progress(`waiting ${Math.ceil(wait / 1000)} s: ${doubt.length} POST(s) of an earlier run got no answer and may still be processed by the service`);
  run.result.notes.push(`waited ${Math.ceil(wait / 1000)} s for ${doubt.length} POST(s) of an earlier run that got no answer`);
  await run.sleep(wait);
  const again = await run.client.listEntries();
  for (const record of doubt) await decide(record, again, true);
  return out;
}

/** Sends the files in rounds (see {@link MAX_SEND_ROUNDS}). */
async function send(run: Run, files: PushCandidate[]): Promise<void> {
  const limit = pLimit(run.options.concurrency ?? 4);
  let round = files;
  let sent = 0;
  for (let n = 1; round.length > 0; n++) {
    const unresolved: Unresolved[] = [];
    await Promise.all(
      round.map((c) =>
        limit(async () => {
          await sendOne(run, c, unresolved);
          if (n === 1) run.options.onSent?.(++sent, files.length);
        }),
      ),
    );
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
  const { result, journal, client } = run;
  if (!run.stop && run.lock?.compromised) {
    run.stop = new ChangelogSyncError('E_LOCKED', `the lock of this content directory was lost while pushing (${run.lock.compromised.message})`, {
      hint: 'another process may have taken it over as stale; run push again when it is done',
    });
  }
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
  };
  await journal.put(record);
  failpoint('push:before-post');
  let answer: Awaited<ReturnType<ChangelogClient['createEntry']>>;
  try {
    answer = await client.createEntry(createInput(c.entry, c.slug));
    failpoint('push:after-post');
  } catch (err) {
    const e = err instanceof ChangelogSyncError ? err : new ChangelogSyncError('E_NETWORK', String((err as Error)?.message ?? err), { cause: err });
    if (e.code === 'E_VALIDATION') {
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
    await journal.put(next);
    failpoint('push:after-journal-created');
    await settle(run, c, next, answer.identifier, status, 'created');
  } else {
    const next: JournalRecord = { ...record, state: 'created', reason: 'the service answered without an identifier' };
    await journal.put(next);
    unresolved.push({ c, record: next, reason: next.reason! });
  }
}

/**
 * Looks the unresolved POSTs of a round up: one `GET /api/entries` for all of them (and
 * one more after waiting, for POSTs that got no answer and may still be in progress).
 *
 * @returns the POSTs that certainly created nothing: safe to send again.
 */
async function reconcile(run: Run, unresolved: Unresolved[]): Promise<Unresolved[]> {
  const notCreated: Unresolved[] = [];
  const look = async (items: Unresolved[], final: boolean): Promise<Unresolved[]> => {
    let list: RemoteEntry[];
    try {
      list = await run.client.listEntries();
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
    run.progress(`waiting ${Math.ceil(wait / 1000)} s: ${doubt.length} POST(s) got no answer and may still be processed by the service`);
    await run.sleep(wait);
    await look(doubt, true);
  }
  return notCreated;
}

/**
 * The remote entry a journal record created, if the list has it: by identifier when
 * known, else by slug among the entries no local file mirrors.
 */
function findRecord(run: Run, record: JournalRecord, list: RemoteEntry[]): RemoteEntry | undefined {
  if (record.identifier) {
    return list.find((r) => r.identifier === record.identifier) ?? ({ identifier: record.identifier, status: record.status ?? 'draft' } as RemoteEntry);
  }
  return list.find((r) => r.slug === record.slug && !run.claimed.has(r.identifier));
}

/**
 * Settles a file whose entry exists: writes identifier, status and slug back, records it
 * in the state, removes its journal record. A write-back that fails (the writer broke the
 * frontmatter meanwhile, or removed the file) keeps the record with the identifier: the
 * next run writes it back, and never sends the file again.
 */
async function settle(run: Run, c: PushCandidate, record: JournalRecord | undefined, identifier: string, status: string | undefined, how: PushedItem['how']): Promise<void> {
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
    await journal.put({
      ...(record ?? { file: c.file, slug: item.slug, title: c.entry.data.title, startedAt: new Date().toISOString() }),
      state: 'created',
      identifier,
      status,
    });
    pend(result, c, `created on the service as ${identifier}, but the identifier could not be written to the file (${(err as Error).message}); fix the file and push again: it writes the identifier and sends nothing`);
    return;
  }
  failpoint('push:after-write-back');
  if (record) {
    await journal.remove(record.file);
    failpoint('push:after-journal-remove');
  }
  result.pushed.push(item);
}

function planItem(c: PushCandidate): PushPlanItem {
  const p: PushPlanItem = { file: c.file, title: c.entry.data.title, slug: c.slug, derived_slug: c.derived, is_published: c.entry.data.is_published ?? false };
  if (c.entry.data.publish_at) p.publish_at = c.entry.data.publish_at;
  return p;
}

function pend(result: PushResult, c: PushCandidate, reason: string): void {
  result.pending.push({ ...planItem(c), reason });
}

function defer(result: PushResult, p: PushPlanItem, why: string): void {
  result.deferred.push(p);
  result.pending.push({ ...p, reason: `deferred to the next run: ${why}` });
}

/** The budget refused to start a request (day spent, or a 429 asking for hours): not a failure, a deferral. */
function isBudgetRefusal(err: unknown): boolean {
  return isErrorCode(err, 'E_RATE_LIMITED') && err.status === undefined;
}

function indexBySlug(entries: RemoteEntry[]): Map<string, RemoteEntry[]> {
  const m = new Map<string, RemoteEntry[]>();
  for (const e of entries) m.set(e.slug, [...(m.get(e.slug) ?? []), e]);
  return m;
}

/** The status the service gives on creation (spec "States and transitions"), when it did not say. */
function expectedStatus(entry: EntryFile, today = new Date().toISOString().slice(0, 10)): string {
  if (entry.data.is_published !== true) return 'draft';
  return entry.data.publish_at !== undefined && entry.data.publish_at > today ? 'scheduled' : 'published';
}
