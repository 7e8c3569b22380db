/**
 * The file that mirrors a remote entry (docs/entry-file.md): frontmatter from the
 * service's fields, the body converted to Markdown, and the writer's own fields (`tags`,
 * unknown fields) of the previous version kept.
 */
import { readFileSync } from 'node:fs';
import type { RemoteEntry } from '../../service/schemas.js';
import { failpoint } from '../../core/failpoint.js';
import { writeFileAtomicSync } from '../../core/atomic-file.js';
import { remoteContentToMarkdown } from '../../convert/html-to-markdown.js';
import { publishDay } from '../../entry/frontmatter.js';
import { mirrorTitle } from '../../entry/remote-data.js';
import { serializeEntryFile } from '../../entry/frontmatter-writer.js';
import { dropXmlInvalid } from '../../core/markup-text.js';
import { syncedHash } from '../store/state.js';
import { contentHash } from '../../core/hash.js';

/** What a rewrite keeps of the file it replaces: the writer's local fields. */
export interface KeptFields {
  /** `tags` as the file has them (the writer's, and those an earlier pull brought: see {@link mergedTags}). */
  tags?: string[];
  /** Unknown frontmatter fields, verbatim. */
  extra?: Record<string, unknown>;
}

/**
 * The file that mirrors a remote entry as listed (docs/service-interface.md#entry).
 * @param keep local fields of the file being replaced.
 * @param media the entry's mirrored images: original `src` -> `/media/<file>`.
 * @returns its text, and the {@link syncedHash} of what mirrors the service.
 */
export function renderMirrorFile(entry: RemoteEntry, keep: KeptFields = {}, media?: Readonly<Record<string, string>>): { text: string; synced: string } {
  const fields = {
    // Characters no feed (XML 1.0) can hold are dropped: pull notes it (pull.ts). A blank
    // title gets one made from the slug: pull notes that too (remote-data.ts).
    title: mirrorTitle({ ...entry, title: dropXmlInvalid(entry.title) }),
    slug: entry.slug || undefined,
    // A publish_at that is not a date is left out (the file is named undated-...): it would
    // make the file invalid. The service keeps the value; the state keeps its hash.
    publish_at: publishDay(entry.publish_at),
    notify_subscribers: entry.notify_subscribers,
    status: entry.status,
    identifier: entry.identifier,
  };
  const body = remoteContentToMarkdown(entry.content, media);
  const text = serializeEntryFile({ ...fields, tags: mergedTags(entry.tags, keep.tags) }, body, keep.extra);
  return { text, synced: syncedHash(fields, body) };
}

/**
 * The `tags` of a mirrored file (docs/entry-file.md#tags): the service's, then the file's own it
 * lacks (compared without case), so a writer's tag is never lost; the file's when the service
 * sends none. `tags` stays the writer's field: changing it is no edit, and push never sends it.
 * @param remote the service's tags, or undefined when it sent none.
 */
function mergedTags(remote: readonly string[] | undefined, local: readonly string[] | undefined): string[] | undefined {
  if (remote === undefined || remote.length === 0) return local ? [...local] : undefined;
  const seen = new Set(remote.map((t) => t.toLowerCase()));
  return [...remote, ...(local ?? []).filter((t) => !seen.has(t.trim().toLowerCase()))];
}

/** One file to write from a remote entry. */
export interface MirrorJob {
  entry: RemoteEntry;
  keep?: KeptFields;
  /** The entry's mirrored images: original `src` -> `/media/<file>` (`media-mirror.ts`). */
  media?: Record<string, string>;
  /** Absolute path of the file to write. */
  path: string;
  /** True when the path is a new name: a file found there (under any spelling) is never replaced (`atomic-file.ts`). */
  exclusive?: boolean;
  /** The text the file has now, when known: an identical rendering is not written. */
  current?: string;
  /** True when the file's text is not known: it is read to find out (conflict copies). */
  readCurrent?: boolean;
  /**
   * For a conflict copy: the text of the writer's file. When the rendering equals it, the
   * writer has already taken the remote version: nothing is written (`matchesLocal`).
   */
  local?: string;
}

/** What became of a {@link MirrorJob}: the file's hashes and whether it was written, or why not. */
export type MirrorOutcome =
  | { hash: string; synced: string; written: boolean; matchesLocal?: boolean; error?: undefined }
  | { error: string; hash?: undefined; synced?: undefined; written?: undefined; matchesLocal?: undefined };

/**
 * Renders a job's file and writes it atomically, unless the file already has that text. Never
 * throws: a failure (a conversion or a write) is an outcome with `error`.
 * @param beforeWrite called with the hashes of the new text right before it is written (pull's
 *   write-ahead log, `write-ahead-log.ts`); a throw stops the write.
 */
export function writeMirrorJob(job: MirrorJob, beforeWrite?: (hash: string, synced: string) => void): MirrorOutcome {
  try {
    const { text, synced } = renderMirrorFile(job.entry, job.keep, job.media);
    if (job.local !== undefined && job.local.replace(/\r\n/g, '\n') === text) return { hash: contentHash(text), synced, written: false, matchesLocal: true };
    let current = job.current;
    if (job.readCurrent) {
      try {
        current = readFileSync(job.path, 'utf8');
      } catch {
        current = undefined;
      }
    }
    const hash = contentHash(text);
    if (current === text) return { hash, synced, written: false };
    beforeWrite?.(hash, synced);
    failpoint('pull:before-write');
    writeFileAtomicSync(job.path, text, { exclusive: job.exclusive === true, fsync: false });
    failpoint('pull:after-write');
    return { hash, synced, written: true };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}
