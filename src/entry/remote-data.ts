/**
 * Odd data from the service never blocks the mirror or the site (docs/sync.md#odd-data-from-the-service):
 * what an entry file cannot hold as sent is mirrored with a note.
 *
 * | the service sends | the mirror file has | said |
 * |---|---|---|
 * | a null, empty or blank `title` | a title from the slug (`release-notes` -> `Release notes`) | a pull note; a `check` warning |
 * | a `status` of another type (`5`, `true`) | the status as text (`"5"`) | a pull note when it is not a word |
 * | one identifier twice in a listing | the first, mirrored once | a pull note |
 *
 * A mirrored file is read as leniently ({@link readMirroredLeniently}); a writer's new file is
 * not: it is what push sends. No zod here: pull's conversion loads this module, and zod's start-up is not needed there.
 */
import type { RemoteEntry } from '../service/schemas.js';

/** True when a title has no visible text (null and absent arrive as `''`). */
function isBlank(title: string): boolean {
  return title.trim() === '';
}

/**
 * A mirror file's title: the service's, or when blank one from the slug (`release-notes` ->
 * `Release notes`; `Untitled entry <8 of the identifier>` without).
 */
export function mirrorTitle(entry: Pick<RemoteEntry, 'title' | 'slug' | 'identifier'>): string {
  if (!isBlank(entry.title)) return entry.title;
  const words = entry.slug.replace(/[-_]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : `Untitled entry ${entry.identifier.slice(0, 8)}`;
}

/** A status is a word the service might use (`published`, `draft`, `scheduled`, `in_review`). */
const STATUS_WORD = /^[A-Za-z][A-Za-z_-]*$/;

/** A note per odd thing in a listing: a blank title (with the one given), a status that is no word, an identifier listed twice. */
export function remoteNotes(remote: readonly RemoteEntry[]): string[] {
  const notes: string[] = [];
  const seen = new Map<string, { first: RemoteEntry; count: number }>();
  for (const e of remote) {
    const had = seen.get(e.identifier);
    if (had) {
      had.count++;
      continue;
    }
    seen.set(e.identifier, { first: e, count: 1 });
    if (isBlank(e.title)) notes.push(`entry ${e.identifier} has no title on the service: mirrored with the title "${mirrorTitle(e)}", made from its slug (give it a title on the service)`);
    if (!STATUS_WORD.test(e.status)) notes.push(`entry ${e.identifier} has the status ${JSON.stringify(e.status)} on the service, which is not a status word: kept as text; the site shows only published and scheduled entries`);
  }
  for (const [id, { first, count }] of seen) {
    if (count < 2) continue;
    const differ = remote.some((e) => e.identifier === id && e !== first && JSON.stringify(e) !== JSON.stringify(first));
    notes.push(`the service listed entry ${id} ${count} times${differ ? ', with different data' : ''}: mirrored once, from its first listing`);
  }
  return notes;
}

/**
 * Reads a mirrored file's known fields (`known`, changed in place) leniently, as pull writes them
 * from odd data; a file without `identifier` is left as it is.
 * @returns one note per field read leniently (for `check` warnings).
 */
export function readMirroredLeniently(known: Record<string, unknown>): string[] {
  const id = known.identifier;
  if (typeof id !== 'string' || id === '') return [];
  const notes: string[] = [];
  const title = known.title;
  if (title === undefined || title === null || (typeof title === 'string' && isBlank(title))) {
    const slug = typeof known.slug === 'string' ? known.slug : '';
    known.title = mirrorTitle({ title: '', slug, identifier: id });
    notes.push(`title: a mirrored entry without a title: shown as "${String(known.title)}", made from its slug (give it a title on the service, then pull)`);
  }
  const status = known.status;
  if (typeof status === 'number' || typeof status === 'boolean') {
    known.status = String(status);
    notes.push(`status: ${String(status)} is not text: read as "${String(status)}"`);
  }
  return notes;
}
