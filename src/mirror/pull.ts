/**
 * Pull: mirror the workspace's entries, tags and settings into the content directory
 * (DESIGN.md "Sync semantics"; service-spec.md endpoints 1, 2 and 6).
 *
 * Incremental and conflict-aware, per remote identifier:
 *
 * | remote | local file | action |
 * |---|---|---|
 * | new | - | written |
 * | unchanged | untouched | nothing (no write) |
 * | unchanged | edited | reported: local edits cannot be pushed (the interface has no update) |
 * | unchanged | missing | restored |
 * | changed | untouched or missing | rewritten (renamed when slug or date changed) |
 * | changed | edited | conflict: local file kept, remote version in `.changelog/conflicts/<id>.md` |
 * | gone | any | reported; removed with `--prune` (unless edited locally) |
 *
 * A pushed entry that was never pulled is adopted: its file is kept, only `status` is
 * brought up to date.
 *
 * @module
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { ChangelogClient } from '../api/client.js';
import type { RemoteEntry, Tag, Workspace } from '../api/schemas.js';
import { remoteContentToMarkdown } from './convert.js';
import { addFrontmatterFields, entryFileName, serializeEntryFile, sha256, type EntryFile } from './entry-file.js';
import { ENTRIES_DIR, listEntryFiles, readEntryFiles } from './local-index.js';
import { CONFLICTS_DIR, loadState, saveState, writeJsonIfChanged, type SyncState } from './state.js';
import { assertWorkspaceBinding, WORKSPACE_DATA_FILE, TAGS_DATA_FILE } from './workspace-binding.js';

/** Options of {@link pull}. */
export interface PullOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Remove files whose remote entry is gone (never a locally edited one). */
  prune?: boolean;
  /** Compute and return the plan; write nothing. */
  dryRun?: boolean;
}

/** One file-level outcome of a pull. */
export interface PullItem {
  identifier: string;
  /** Path relative to the content directory. */
  file: string;
  title: string;
  /** For renames: the previous path. */
  from?: string;
}

/** What a pull did (or, with `dryRun`, would do). */
export interface PullResult {
  workspace: { identifier: string; name: string };
  /** Remote entries seen. */
  remote: number;
  created: PullItem[];
  updated: PullItem[];
  renamed: PullItem[];
  restored: PullItem[];
  adopted: PullItem[];
  unchanged: number;
  /** Remote changed and local edited: local kept, remote copy in `conflictFile`. */
  conflicts: Array<PullItem & { conflictFile: string }>;
  /** Local edited, remote unchanged: cannot be pushed (no update operation). */
  localEdits: PullItem[];
  /** In the state, gone from the service. */
  remoteGone: Array<PullItem & { pruned: boolean }>;
  /** Files written: relative to the content directory, or `state:<name>` inside the state directory. */
  writes: string[];
  dryRun: boolean;
}

/** sha256 of a remote entry, as the service returned it. */
export function remoteHash(entry: RemoteEntry): string {
  return sha256(JSON.stringify(entry));
}

/** The text of the file that mirrors a remote entry, keeping local tags and unknown fields. */
export function renderRemoteEntry(entry: RemoteEntry, previous?: EntryFile): string {
  const body = remoteContentToMarkdown(entry.content);
  return serializeEntryFile(
    {
      title: entry.title,
      slug: entry.slug || undefined,
      publish_at: entry.publish_at ? entry.publish_at.slice(0, 10) : undefined,
      notify_subscribers: entry.notify_subscribers,
      status: entry.status,
      identifier: entry.identifier,
      tags: previous?.data.tags,
    },
    body,
    previous?.extra,
  );
}

/**
 * Pulls the workspace into the content directory.
 *
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH` when the content directory mirrors
 *   another workspace; any client error (`E_AUTH`, `E_NETWORK`, ...) before anything is written.
 */
export async function pull(options: PullOptions): Promise<PullResult> {
  const { client, contentDir, stateDir, dryRun = false } = options;
  const workspace = await client.getWorkspace();
  await assertWorkspaceBinding(contentDir, workspace);
  const [remote, tags] = await Promise.all([client.listEntries(), client.listTags()]);

  const state = await loadState(stateDir);
  const result: PullResult = {
    workspace: { identifier: workspace.identifier, name: workspace.name },
    remote: remote.length,
    created: [],
    updated: [],
    renamed: [],
    restored: [],
    adopted: [],
    unchanged: 0,
    conflicts: [],
    localEdits: [],
    remoteGone: [],
    writes: [],
    dryRun,
  };
  const write = async (rel: string, text: string, base = contentDir) => {
    result.writes.push(rel);
    if (dryRun) return;
    const abs = join(base, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFileAtomic(abs, text);
  };

  // Files the state does not know: look for identifiers (a fresh clone, a push without state).
  const known = new Set(Object.values(state.entries).map((e) => e.file));
  const unknownFiles = (await listEntryFiles(contentDir)).filter((f) => !known.has(f));
  const byIdentifier = new Map<string, EntryFile>();
  for (const item of await readEntryFiles(contentDir, unknownFiles)) {
    const id = item.entry?.data.identifier;
    if (id && !state.entries[id]) {
      byIdentifier.set(id, item.entry!);
      state.entries[id] = { file: item.rel, remoteHash: null, localHash: item.hash };
    }
  }

  // Paths in use, so that two entries never share a file.
  const taken = new Map<string, string>(); // file -> identifier
  for (const [id, e] of Object.entries(state.entries)) taken.set(e.file, id);
  for (const f of unknownFiles) if (!taken.has(f)) taken.set(f, '');
  const pathFor = (entry: RemoteEntry, current?: string): string => {
    const plain = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, entry.slug || entry.title)}`;
    const suffixed = `${ENTRIES_DIR}/${entryFileName(entry.publish_at, entry.slug || entry.title, entry.identifier)}`;
    if (current === plain || current === suffixed) return current;
    const owner = taken.get(plain);
    return owner === undefined || owner === entry.identifier ? plain : suffixed;
  };
  const claim = (file: string, id: string, previous?: string) => {
    if (previous && previous !== file && taken.get(previous) === id) taken.delete(previous);
    taken.set(file, id);
  };

  const seen = new Set<string>();
  for (const entry of remote) {
    const id = entry.identifier;
    if (seen.has(id)) continue; // the service listed an entry twice: mirror it once
    seen.add(id);
    const rh = remoteHash(entry);
    const rec = state.entries[id];
    const item = (file: string): PullItem => ({ identifier: id, file, title: entry.title });

    if (!rec) {
      const file = pathFor(entry);
      claim(file, id);
      const text = renderRemoteEntry(entry);
      await write(file, text);
      state.entries[id] = { file, remoteHash: rh, localHash: sha256(text) };
      result.created.push(item(file));
      continue;
    }

    const localRaw = await readFile(join(contentDir, rec.file)).catch(() => null);
    const localHash = localRaw === null ? null : sha256(localRaw);
    const localEdited = localHash !== null && localHash !== rec.localHash;

    if (rec.remoteHash === null) {
      // Pushed by us (or found with an identifier), never pulled: adopt the writer's file.
      if (localRaw === null) {
        const file = pathFor(entry);
        claim(file, id, rec.file);
        const text = renderRemoteEntry(entry);
        await write(file, text);
        state.entries[id] = { file, remoteHash: rh, localHash: sha256(text) };
        result.restored.push(item(file));
        continue;
      }
      const text = localRaw.toString('utf8');
      const current = byIdentifier.get(id);
      const statusNow = current?.data.status ?? /^status:\s*(.*)$/m.exec(text)?.[1]?.trim();
      let newText = text;
      if (statusNow !== entry.status) newText = addFrontmatterFields(rec.file, text, { status: entry.status });
      if (newText !== text) await write(rec.file, newText);
      state.entries[id] = { file: rec.file, remoteHash: rh, localHash: sha256(newText) };
      result.adopted.push(item(rec.file));
      continue;
    }

    if (rh === rec.remoteHash) {
      if (localRaw === null) {
        const text = renderRemoteEntry(entry);
        await write(rec.file, text);
        state.entries[id] = { ...rec, localHash: sha256(text) };
        result.restored.push(item(rec.file));
      } else if (localEdited) {
        result.localEdits.push(item(rec.file));
      } else {
        result.unchanged++;
      }
      continue;
    }

    // The remote entry changed.
    if (localEdited) {
      const conflictFile = `${CONFLICTS_DIR}/${id}.md`;
      result.writes.push(`state:${conflictFile}`);
      if (!dryRun) {
        await mkdir(join(stateDir, CONFLICTS_DIR), { recursive: true });
        await writeFileAtomic(join(stateDir, conflictFile), renderRemoteEntry(entry));
      }
      result.conflicts.push({ ...item(rec.file), conflictFile });
      continue;
    }
    let previous: EntryFile | undefined;
    if (localRaw !== null) {
      const parsed = await readEntryFiles(contentDir, [rec.file]);
      previous = parsed[0]?.entry;
    }
    const file = pathFor(entry, rec.file);
    claim(file, id, rec.file);
    const text = renderRemoteEntry(entry, previous);
    await write(file, text);
    if (file !== rec.file && localRaw !== null) {
      if (!dryRun) await rm(join(contentDir, rec.file), { force: true });
      result.renamed.push({ ...item(file), from: rec.file });
    } else {
      result.updated.push(item(file));
    }
    state.entries[id] = { file, remoteHash: rh, localHash: sha256(text) };
  }

  // Remote entries that are gone.
  for (const [id, rec] of Object.entries(state.entries)) {
    if (seen.has(id)) continue;
    const localRaw = await readFile(join(contentDir, rec.file)).catch(() => null);
    const edited = localRaw !== null && sha256(localRaw) !== rec.localHash;
    const title = byIdentifier.get(id)?.data.title ?? rec.file;
    const pruned = Boolean(options.prune) && !edited;
    if (pruned) {
      if (!dryRun) await rm(join(contentDir, rec.file), { force: true });
      delete state.entries[id];
    }
    result.remoteGone.push({ identifier: id, file: rec.file, title, pruned });
  }

  if (!dryRun) {
    if (await writeJsonIfChanged(join(contentDir, WORKSPACE_DATA_FILE), workspaceData(workspace))) result.writes.push(WORKSPACE_DATA_FILE);
    if (await writeJsonIfChanged(join(contentDir, TAGS_DATA_FILE), tags.map(tagData))) result.writes.push(TAGS_DATA_FILE);
    state.workspace = workspace.identifier;
    if (await saveState(stateDir, state)) result.writes.push(`state:${'state.json'}`);
  }
  return result;
}

/** `content/_data/workspace.json`: the workspace settings, flags as booleans. */
export function workspaceData(w: Workspace): Record<string, unknown> {
  return { ...w };
}

function tagData(t: Tag): Record<string, unknown> {
  return { ...t };
}

