/**
 * What keeps a feed item the same item from build to build (docs/site.md#feeds): its id and its
 * `updated` date. Readers key on the id (Atom `<id>`, RSS `<guid>`, JSON Feed `id`) and notify
 * again when it changes, so it must not follow the URL, which a slug rename or base path changes.
 *
 * - **Id**: `urn:uuid:<identifier>` for a UUID identifier (spec "Entry"), else `urn:uuid:` with a
 *   name-based UUID (RFC 9562 version 5) of it: valid and stable whatever the identifier (a `tag:`
 *   URI would need an authority the site owns, and its host changes when the site moves). An
 *   entry not yet pushed uses its file name, and changes once, when push gives it an identifier.
 * - **Updated**: changes only with the title and Markdown body. The service gives no modification
 *   time, so `.changelog/feed-dates.json` ({@link FEED_DATES_FILE}, committed by the scheduled job
 *   so a fresh clone builds the same dates) keeps per identifier a digest and the `updated` given.
 *   An unknown entry is `updated` at its publish date; one whose digest differs, at the build's
 *   time. The digest is of the Markdown, not the HTML: a renderer change updates no entry.
 */
import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonIfChanged } from '../../core/atomic-file.js';

/** File name of the record of feed dates, in the state directory (`.changelog/`). */
export const FEED_DATES_FILE = 'feed-dates.json';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Namespace of {@link feedItemId}'s name-based UUIDs, chosen once at random. Never change it: every reader would see every such entry as new. */
const ID_NAMESPACE = '6b1f5e0c-3c2a-4f5e-9d7b-2a8c4e6f1b3d';

/**
 * A name-based UUID, version 5 (RFC 9562 section 5.5): SHA-1 of the namespace's 16 bytes and
 * the name's UTF-8, with the version and variant bits set. Node has no built-in for it.
 */
export function nameBasedUuid(name: string, namespace: string = ID_NAMESPACE): string {
  const bytes = hash('sha1', Buffer.concat([Buffer.from(namespace.replace(/-/g, ''), 'hex'), Buffer.from(name, 'utf8')]), 'buffer').subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** An entry's item id in every feed: `urn:uuid:<identifier>` (lowercase) for a UUID, else the name-based UUID of the identifier or, without one, the file name. */
export function feedItemId(identifier: string | undefined, file: string): string {
  if (identifier !== undefined && UUID.test(identifier)) return `urn:uuid:${identifier.toLowerCase()}`;
  return `urn:uuid:${nameBasedUuid(identifier !== undefined ? `identifier:${identifier}` : `file:${file}`)}`;
}

/** Digest of what a reader reads of an entry: its title and Markdown body (trimmed, LF line ends). */
export function feedContentDigest(title: string, body: string): string {
  return hash('sha256', JSON.stringify([title.trim(), body.replace(/\r\n?/g, '\n').trim()]), 'base64url');
}

/** `.changelog/feed-dates.json`: per identifier, the content digest and the `updated` time (ISO, seconds) given to it. */
export interface FeedDates {
  version: 1;
  entries: Record<string, { hash: string; updated: string }>;
}

/**
 * The `updated` time of each of `items` and the record to keep: `items`' identifiers and those of
 * `previous` that `keep` accepts (hidden entries, unreadable files), so they keep their dates. An
 * entry without identifier is `updated` at its publish date and not recorded.
 * @param items the visible entries: identifier, {@link feedContentDigest} (`hash`), publish date (`published`, midnight UTC).
 * @param now the build's time: a changed entry's `updated` (at least a second after its previous one, never before its publish date).
 */
export function settleFeedDates(items: ReadonlyArray<{ identifier: string | undefined; hash: string; published: Date }>, previous: FeedDates | undefined, now: Date, keep: (identifier: string) => boolean = () => false): { updated: Date[]; record: FeedDates } {
  const before = new Map(Object.entries(previous?.entries ?? {}));
  const after = new Map<string, { hash: string; updated: string }>();
  const nowSeconds = Math.floor(now.getTime() / 1000) * 1000;
  const updated = items.map((item) => {
    if (item.identifier === undefined) return item.published;
    const was = before.get(item.identifier);
    const wasTime = was ? Date.parse(was.updated) : NaN;
    let time: number;
    if (!was || Number.isNaN(wasTime)) time = item.published.getTime();
    else if (was.hash === item.hash) time = Math.max(wasTime, item.published.getTime());
    else time = Math.max(nowSeconds, wasTime + 1000, item.published.getTime());
    const date = new Date(time);
    after.set(item.identifier, { hash: item.hash, updated: date.toISOString().replace(/\.000Z$/, 'Z') });
    return date;
  });
  for (const [id, was] of before) if (!after.has(id) && keep(id)) after.set(id, was);
  const sorted = [...after].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { updated, record: { version: 1, entries: Object.fromEntries(sorted) } };
}

/** Reads `.changelog/feed-dates.json`; undefined when it is missing or not such a record (then every entry is `updated` at its publish date). */
export async function loadFeedDates(stateDir: string): Promise<FeedDates | undefined> {
  try {
    const json = JSON.parse(await readFile(join(stateDir, FEED_DATES_FILE), 'utf8')) as Partial<FeedDates>;
    if (json.version !== 1 || !json.entries || typeof json.entries !== 'object') return undefined;
    const entries: FeedDates['entries'] = Object.create(null) as FeedDates['entries'];
    for (const [id, v] of Object.entries(json.entries)) if (v && typeof v.hash === 'string' && typeof v.updated === 'string') entries[id] = { hash: v.hash, updated: v.updated };
    return { version: 1, entries };
  } catch {
    return undefined;
  }
}

/**
 * Writes `.changelog/feed-dates.json` when it changed (atomically).
 * @returns true when the file was written.
 * @throws {Error} (Node's) when the state directory cannot be written.
 */
export function recordFeedDates(stateDir: string, record: FeedDates): Promise<boolean> {
  return writeJsonIfChanged(join(stateDir, FEED_DATES_FILE), record);
}
