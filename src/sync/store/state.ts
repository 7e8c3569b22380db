/**
 * Sync state (docs/sync.md#sync-state): `.changelog/state.json`, committed, records per remote
 * identifier the mirroring file, the remote entry's hash and the file's as last written.
 * `.changelog/budget.json` holds the daily request ledger, out of git; the workflow's cache
 * carries it between runs (docs/github-actions.md).
 */
import { hash } from 'node:crypto';
import { sha256 } from '../../core/hash.js';
import { writeJsonIfChanged } from '../../core/atomic-file.js';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import type { DailyLedger } from '../../service/rate-budget.js';
import { failpoint } from '../../core/failpoint.js';
import { fileStep } from '../../core/file-error.js';
import { toolVersion } from '../../core/config.js';
import type { EntryFrontmatter } from '../../entry/entry-file.js';
import { BUDGET_FILE, STATE_FILE, STATE_FORMAT, isReadableFormat, newerStateError, readJsonFile, recordedTool } from './state-format.js';

/** What the state knows of one remote entry. */
export interface EntryState {
  /** Path of the mirroring file, relative to the content directory, with `/` separators. */
  file: string;
  /** sha256 of the remote entry as last pulled; `null` when it was pushed and never pulled. */
  remoteHash: string | null;
  /** `contentHash` (core/hash.ts) of the file as last written by pull or push. */
  localHash: string;
  /**
   * {@link syncedHash} of the file as last written: of what the service owns (its fields
   * and the body). A file that differs from `localHash` only in the writer's own fields
   * (`tags`, unknown fields) is not an edit: the next remote change rewrites it and keeps them.
   */
  syncedHash?: string;
}

/** The whole sync state. */
export interface SyncState {
  /** The state format (`state-format.ts`): the one read, or {@link STATE_FORMAT} for a new state. Saved as {@link STATE_FORMAT}. */
  version: number;
  /** The changelog-sync version that wrote the format (absent in format 1): kept by every save, set by a migration. */
  tool?: string;
  /** Identifier of the workspace this content directory mirrors. */
  workspace?: string;
  /** Per remote identifier (an object without prototype: an identifier is data, even `__proto__`). */
  entries: Record<string, EntryState>;
}

/** File names inside the state directory (`state.json` and `budget.json`: `state-format.ts`). */
export { BUDGET_FILE };
export const JOURNAL_FILE = 'journal.json';
export const CONFLICTS_DIR = 'conflicts';

/** The fields of an entry file that mirror the service (the rest is the writer's own). */
export type SyncedFields = Pick<EntryFrontmatter, 'title' | 'slug' | 'publish_at' | 'notify_subscribers' | 'status' | 'identifier'>;

/** sha256 of the part of an entry file that mirrors the service: its fields and the body (trimmed, LF line ends). */
export function syncedHash(fields: SyncedFields, body: string): string {
  const f = fields;
  const text = JSON.stringify([f.title.trim(), f.slug ?? null, f.publish_at ?? null, f.notify_subscribers ?? null, f.status ?? null, f.identifier ?? null, body.replace(/\r\n/g, '\n').trim()]);
  return hash('sha256', text, 'hex');
}

/**
 * sha256 of a remote entry as listed: every field in the service's order, each as name and value
 * with their lengths (unambiguous); strings as they are, others as JSON. Not the entry as JSON,
 * which escapes every quote of the HTML and dominated hashing a large listing.
 */
export function remoteHash(entry: object): string {
  let text = '';
  for (const [key, value] of Object.entries(entry)) {
    const v = typeof value === 'string' ? `s${value}` : `j${String(JSON.stringify(value))}`;
    text += `${key.length}:${key}${v.length}:${v};`;
  }
  return hash('sha256', text, 'hex');
}

/**
 * The conflict copy of a remote entry, relative to the state directory:
 * `conflicts/<identifier>.md`, or a hash of the identifier when it is not a plain
 * `[A-Za-z0-9_-]` name (an identifier never chooses a path).
 */
export function conflictFile(identifier: string): string {
  const safe = /^[A-Za-z0-9_-]{1,100}$/.test(identifier) ? identifier : `id-${sha256(identifier).slice(0, 32)}`;
  return `${CONFLICTS_DIR}/${safe}.md`;
}

/** A state file's JSON, or `undefined`; a broken one's fix is a full pull. */
const readJson = (path: string) => readJsonFile(path, 'restore it from git (git checkout -- <file>), or delete it to rebuild the state with a full pull');

/**
 * Loads `.changelog/state.json` (empty when absent), in any format read unmigrated (`state-format.ts`).
 * @throws {ChangelogSyncError} `E_STATE_FORMAT` for a newer format; `E_FILE` when unreadable or not a state.
 */
export async function loadState(stateDir: string): Promise<SyncState> {
  const path = join(stateDir, STATE_FILE);
  const json = (await readJson(path)) as (Omit<SyncState, 'tool'> & { tool?: unknown }) | undefined;
  if (json === undefined) return { version: STATE_FORMAT, tool: toolVersion(), entries: Object.create(null) as Record<string, EntryState> };
  if (typeof json.version === 'number' && json.version > STATE_FORMAT) throw newerStateError(path, json.version, recordedTool(json.tool));
  if (typeof json.version !== 'number' || !isReadableFormat(json.version) || typeof json.entries !== 'object' || json.entries === null || Array.isArray(json.entries)) {
    throw new ChangelogSyncError('E_FILE', `${path}: not a changelog-sync state (version 1 to ${STATE_FORMAT})`, {
      file: path,
      hint: 'restore it from git (git checkout -- <file>), or delete it to rebuild the state with a full pull',
    });
  }
  const tool = recordedTool(json.tool);
  return { version: json.version, ...(tool ? { tool } : {}), workspace: json.workspace, entries: Object.assign(Object.create(null) as Record<string, EntryState>, json.entries) };
}

/**
 * Saves the state atomically when it changed. @returns true when written.
 * @throws {ChangelogSyncError} `E_FILE` naming `state.json` when it cannot be written.
 */
export async function saveState(stateDir: string, state: SyncState): Promise<boolean> {
  // Sorted by identifier so that the committed file diffs cleanly.
  const entries = Object.fromEntries(Object.entries(state.entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  // Object.fromEntries defines own properties, so an identifier `__proto__` is kept as data.
  const path = join(stateDir, STATE_FILE);
  const written = await fileStep({ file: path, step: 'saving the sync state' }, () =>
    writeJsonIfChanged(path, { version: STATE_FORMAT, tool: state.tool ?? toolVersion(), workspace: state.workspace, entries }, () => failpoint('state:tmp-created')),
  );
  if (written) failpoint('state:after-save');
  return written;
}

/**
 * Loads the rate budget's daily ledger (`.changelog/budget.json`), of any state format: the
 * workflow's cache, not git, carries it, so it may be older or newer than `state.json`.
 */
export async function loadLedger(stateDir: string): Promise<DailyLedger> {
  const json = (await readJson(join(stateDir, BUDGET_FILE))) as { ledger?: DailyLedger } | undefined;
  return Array.isArray(json?.ledger) ? json.ledger : [];
}

/**
 * Saves the daily ledger when it changed.
 * @throws {ChangelogSyncError} `E_FILE` naming `budget.json` when it cannot be written.
 */
export async function saveLedger(stateDir: string, ledger: DailyLedger): Promise<boolean> {
  const path = join(stateDir, BUDGET_FILE);
  return fileStep({ file: path, step: "saving the day's request ledger" }, () => writeJsonIfChanged(path, { version: STATE_FORMAT, ledger }));
}
