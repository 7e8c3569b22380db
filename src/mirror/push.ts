/**
 * Push: create remote entries from new local files (DESIGN.md "Sync semantics";
 * service-spec.md endpoint 5). Only files without `identifier` are sent.
 *
 * At most once: every POST is journaled first (see `journal.ts`); a record left by a crash
 * or a lost response is reconciled against the remote list by slug before anything is
 * sent again. Push always sends an explicit slug, so that this match is exact.
 *
 * Nothing lost: every candidate file ends the run pushed (identifier written back), pending
 * (with its reason), or rejected (with file, field and fix).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import writeFileAtomic from 'write-file-atomic';
import type { ChangelogClient } from '../api/client.js';
import { ChangelogSyncError, ValidationError, isErrorCode, type FieldIssue } from '../api/errors.js';
import type { CreateEntryInput, RemoteEntry } from '../api/schemas.js';
import { markdownToHtml } from './convert.js';
import { addFrontmatterFields, isSafeSlug, sha256, slugify, type EntryFile } from './entry-file.js';
import { Journal, type JournalRecord } from './journal.js';
import { readEntryFiles } from './local-index.js';
import { loadState, saveState, type SyncState } from './state.js';
import { assertWorkspaceBinding } from './workspace-binding.js';

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
}

/** A file that will be (or was) sent. */
export interface PushPlanItem {
  file: string;
  title: string;
  slug: string;
  publish_at?: string;
  is_published: boolean;
}

/** One file's outcome. */
export interface PushedItem extends PushPlanItem {
  identifier: string;
  status?: string;
  /** True when the entry already existed remotely (found by reconciliation) and was not sent again. */
  reconciled: boolean;
}

/** What a push did (or, with `dryRun`, would do). */
export interface PushResult {
  /** Files sent or to send, in order (oldest first). */
  plan: PushPlanItem[];
  pushed: PushedItem[];
  /** Not sent this run; will be tried again. */
  pending: Array<PushPlanItem & { reason: string }>;
  /** Not sent because the day's request budget ran out (a subset of `pending`). */
  deferred: PushPlanItem[];
  /** Invalid; not sent until fixed. */
  rejected: Array<{ file: string; reason: string; field?: string; line?: number; issues?: FieldIssue[] }>;
  /** Requests the plan needs (POSTs plus reconciliation lists). */
  requests: number;
  /** Earliest start times (ISO) of the POSTs, from the rate budget (dry-run). */
  schedule: string[];
  dryRun: boolean;
}

/** The create request for a file. */
export function createInput(entry: EntryFile, slug: string): CreateEntryInput {
  const d = entry.data;
  const input: CreateEntryInput = { title: d.title, slug, html: markdownToHtml(entry.body) };
  if (d.publish_at !== undefined) input.publish_at = d.publish_at;
  if (d.is_published !== undefined) input.is_published = d.is_published;
  input.notify_subscribers = d.notify_subscribers ?? false;
  return input;
}

/**
 * Pushes new local entry files.
 *
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH`, `E_AUTH` (nothing sent then), or
 *   a failure of the initial remote listing. Failures of single POSTs are reported per
 *   file, not thrown.
 */
export async function push(options: PushOptions): Promise<PushResult> {
  const { client, contentDir, stateDir, dryRun = false } = options;
  const result: PushResult = { plan: [], pushed: [], pending: [], deferred: [], rejected: [], requests: 0, schedule: [], dryRun };

  // 1. Read and validate every local file first.
  const files = await readEntryFiles(contentDir);
  const candidates: Array<{ entry: EntryFile; slug: string }> = [];
  const slugOwners = new Map<string, string>();
  for (const f of files) {
    if (f.error) {
      if (!looksPushed(f.raw)) {
        result.rejected.push({
          file: f.rel,
          reason: f.error.message,
          field: f.error.field,
          line: f.error.line,
          issues: f.error instanceof ValidationError ? f.error.issues : undefined,
        });
      }
      continue;
    }
    const e = f.entry!;
    const slug = e.data.slug ?? slugify(e.data.title);
    if (e.data.identifier) {
      slugOwners.set(slug, f.rel);
      continue;
    }
    if (!isSafeSlug(slug)) {
      result.rejected.push({ file: f.rel, field: 'slug', reason: `${f.rel}: slug "${slug}" is not URL-safe (fix: use letters, digits, hyphens and underscores, e.g. \`slug: new-export-api\`)` });
      continue;
    }
    candidates.push({ entry: e, slug });
  }
  const counts = new Map<string, number>();
  for (const c of candidates) counts.set(c.slug, (counts.get(c.slug) ?? 0) + 1);
  const valid = candidates.filter((c) => {
    const other = slugOwners.get(c.slug);
    if ((counts.get(c.slug) ?? 0) > 1 || other) {
      const with_ = other ?? candidates.filter((x) => x.slug === c.slug && x !== c).map((x) => x.entry.path).join(', ');
      result.rejected.push({
        file: c.entry.path,
        field: 'slug',
        reason: `${c.entry.path}: slug "${c.slug}" is also used by ${with_} (fix: set a distinct \`slug:\` in the frontmatter)`,
      });
      return false;
    }
    return true;
  });

  const journal = await Journal.open(stateDir);
  if (valid.length === 0 && journal.list().length === 0) return result;

  // 2. One remote listing: slugs in use, and reconciliation of journaled POSTs.
  const workspace = await client.getWorkspace();
  await assertWorkspaceBinding(contentDir, workspace);
  let remote = await client.listEntries();
  let remoteBySlug = indexBySlug(remote);
  const state = await loadState(stateDir);
  const claimed = new Set(Object.keys(state.entries));

  const settle = async (record: JournalRecord, found: RemoteEntry, reconciled: boolean, plan: PushPlanItem) => {
    await writeBack(contentDir, record.file, found.identifier, found.status, record.slug, state);
    await journal.remove(record.file);
    claimed.add(found.identifier);
    result.pushed.push({ ...plan, identifier: found.identifier, status: found.status, reconciled });
  };

  // Journaled POSTs from an earlier run.
  const byFile = new Map(valid.map((c) => [c.entry.path, c]));
  for (const record of journal.list()) {
    const c = byFile.get(record.file);
    const found = remoteBySlug.get(record.slug)?.find((r) => !claimed.has(r.identifier));
    if (!c) {
      // The file is gone or already carries an identifier: nothing to send for it.
      if (!dryRun) await journal.remove(record.file);
      continue;
    }
    if (found) {
      if (!dryRun) await settle(record, found, true, planItem(c));
      else result.pushed.push({ ...planItem(c), identifier: found.identifier, status: found.status, reconciled: true });
      byFile.delete(record.file);
    } else if (!dryRun) {
      await journal.remove(record.file); // not created: safe to send again
    }
  }

  // 3. Remote slug conflicts, then the plan: oldest first.
  const toSend: typeof valid = [];
  for (const c of byFile.values()) {
    const used = remoteBySlug.get(c.slug);
    if (used && used.length > 0) {
      result.rejected.push({
        file: c.entry.path,
        field: 'slug',
        reason: `${c.entry.path}: slug "${c.slug}" is already used by the remote entry "${used[0]!.title}" (${used[0]!.identifier}) (fix: set another \`slug:\` in the frontmatter)`,
      });
      continue;
    }
    toSend.push(c);
  }
  toSend.sort((a, b) => {
    const da = a.entry.data.publish_at ?? '9999-99-99';
    const db = b.entry.data.publish_at ?? '9999-99-99';
    return da < db ? -1 : da > db ? 1 : a.entry.path < b.entry.path ? -1 : 1;
  });
  result.plan = toSend.map(planItem);

  // 4. The day's budget: what does not fit is deferred (one list request kept for reconciliation).
  const fits = Math.max(0, client.budget.dayRemaining() - 1);
  const now = toSend.slice(0, fits);
  for (const c of toSend.slice(fits)) {
    const p = planItem(c);
    result.deferred.push(p);
    result.pending.push({ ...p, reason: 'deferred: the daily request budget is spent; the next run sends it' });
  }
  result.requests = now.length + (now.length > 0 ? 1 : 0);
  result.schedule = client.budget.schedule(now.length).map((t) => new Date(t).toISOString());
  if (dryRun) return result;

  // 5. Send.
  const limit = pLimit(options.concurrency ?? 4);
  const unresolved: Array<{ record: JournalRecord; plan: PushPlanItem; reason: string }> = [];
  let stop: ChangelogSyncError | undefined;
  await Promise.all(
    now.map((c) =>
      limit(async () => {
        const plan = planItem(c);
        if (stop) {
          result.pending.push({ ...plan, reason: `not sent: ${stop.message}` });
          return;
        }
        const record: JournalRecord = { file: c.entry.path, slug: c.slug, title: c.entry.data.title, startedAt: new Date().toISOString(), state: 'sending' };
        await journal.put(record);
        try {
          const res = await client.createEntry(createInput(c.entry, c.slug));
          if (res.identifier) {
            await journal.put({ ...record, state: 'created', identifier: res.identifier, status: res.entry?.status });
            await writeBack(contentDir, record.file, res.identifier, res.entry?.status ?? expectedStatus(c.entry, options.today), c.slug, state);
            await journal.remove(record.file);
            claimed.add(res.identifier);
            result.pushed.push({ ...plan, identifier: res.identifier, status: res.entry?.status, reconciled: false });
          } else {
            unresolved.push({ record, plan, reason: 'the service answered without an identifier' });
          }
        } catch (err) {
          if (isErrorCode(err, 'E_VALIDATION')) {
            await journal.remove(record.file); // refused: nothing was created
            const issues = (err as ValidationError).issues;
            result.rejected.push({ file: record.file, reason: `${record.file}: the service refused it: ${err.message}`, field: issues[0]?.field, issues });
          } else if (isErrorCode(err, 'E_RATE_LIMITED')) {
            await journal.remove(record.file); // 429: refused before anything happened
            result.pending.push({ ...plan, reason: err.message });
          } else if (isErrorCode(err, 'E_AUTH')) {
            await journal.remove(record.file);
            stop = err;
            result.pending.push({ ...plan, reason: err.message });
          } else {
            // Lost response, 5xx, timeout: the entry may exist. Reconcile below.
            unresolved.push({ record, plan, reason: err instanceof Error ? err.message : String(err) });
          }
        }
      }),
    ),
  );

  // 6. Reconcile responses without identifier and lost ones: one list call for all.
  if (unresolved.length > 0) {
    try {
      remote = await client.listEntries();
      remoteBySlug = indexBySlug(remote);
      for (const u of unresolved) {
        const found = remoteBySlug.get(u.record.slug)?.find((r) => !claimed.has(r.identifier));
        if (found) await settle(u.record, found, true, u.plan);
        else {
          await journal.remove(u.record.file); // not created: the next run sends it
          result.pending.push({ ...u.plan, reason: `not created (${u.reason}); the next run sends it again` });
        }
      }
    } catch (err) {
      // Keep the journal records: the next run reconciles them before sending.
      for (const u of unresolved) result.pending.push({ ...u.plan, reason: `outcome unknown (${u.reason}); the next run checks the service before sending again` });
      if (isErrorCode(err, 'E_AUTH')) throw err;
    }
  }
  await saveState(stateDir, state);
  if (stop) throw stop;
  return result;
}

function planItem(c: { entry: EntryFile; slug: string }): PushPlanItem {
  const p: PushPlanItem = { file: c.entry.path, title: c.entry.data.title, slug: c.slug, is_published: c.entry.data.is_published ?? false };
  if (c.entry.data.publish_at) p.publish_at = c.entry.data.publish_at;
  return p;
}

function indexBySlug(entries: RemoteEntry[]): Map<string, RemoteEntry[]> {
  const m = new Map<string, RemoteEntry[]>();
  for (const e of entries) m.set(e.slug, [...(m.get(e.slug) ?? []), e]);
  return m;
}

/** A file that failed to parse but already has an identifier line is not a push candidate. */
function looksPushed(raw: Buffer): boolean {
  return /^identifier:\s*\S/m.test(raw.toString('utf8').split(/\r?\n---/)[0] ?? '');
}

/** The status the service gives on creation (spec "States and transitions"), when it did not say. */
function expectedStatus(entry: EntryFile, today = new Date().toISOString().slice(0, 10)): string {
  if (entry.data.is_published !== true) return 'draft';
  return entry.data.publish_at !== undefined && entry.data.publish_at > today ? 'scheduled' : 'published';
}

/**
 * Writes the identifier (and status and slug) into the file's frontmatter, on the file's
 * current content (a writer's edit during the push is kept), atomically.
 */
async function writeBack(contentDir: string, rel: string, identifier: string, status: string | undefined, slug: string, state: SyncState): Promise<void> {
  const abs = join(contentDir, rel);
  const current = await readFile(abs, 'utf8');
  const fields: Record<string, string> = {};
  if (!/^slug:/m.test(current.split(/\r?\n---/)[0] ?? '')) fields.slug = slug;
  if (status) fields.status = status;
  fields.identifier = identifier;
  const text = addFrontmatterFields(rel, current, fields);
  await writeFileAtomic(abs, text);
  state.entries[identifier] = { file: rel, remoteHash: null, localHash: sha256(text) };
}
