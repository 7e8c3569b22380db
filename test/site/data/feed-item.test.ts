// Feed item ids and `updated` dates (src/site/data/feed-item.ts): the rules, and the record that
// carries the dates from one build to the next.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEED_DATES_FILE, feedContentDigest, feedItemId, loadFeedDates, nameBasedUuid, recordFeedDates, settleFeedDates, type FeedDates } from '../../../src/site/data/feed-item.js';
import { useTempDir } from '../../helpers/process/cli.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const day = (d: string) => new Date(`${d}T00:00:00Z`);

describe('feed item ids', () => {
  it('name-based UUIDs are RFC 9562 version 5 (its example: www.example.com in the DNS namespace)', () => {
    expect(nameBasedUuid('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('a UUID identifier is the id itself, lowercased; any other a name-based UUID of it; no identifier, of the file', () => {
    expect(feedItemId('3F1C8A52-0D7E-4C1B-9A4F-6B2E8D9C1A07', 'entries/x.md')).toBe('urn:uuid:3f1c8a52-0d7e-4c1b-9a4f-6b2e8d9c1a07');
    const other = feedItemId('remote-0001', 'entries/x.md');
    expect(other).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The identifier alone decides: not the file (a rename moves it).
    expect(feedItemId('remote-0001', 'entries/y.md')).toBe(other);
    expect(feedItemId('remote-0002', 'entries/x.md')).not.toBe(other);
    expect(feedItemId(undefined, 'entries/x.md')).not.toBe(feedItemId(undefined, 'entries/y.md'));
    // An identifier that looks like a file name is not taken for one.
    expect(feedItemId('file:entries/x.md', 'entries/z.md')).not.toBe(feedItemId(undefined, 'entries/x.md'));
  });

  it('the content digest follows the title and body, not line ends or surrounding space', () => {
    const d = feedContentDigest('Title', 'Body\n\nMore.\n');
    expect(feedContentDigest(' Title ', 'Body\r\n\r\nMore.')).toBe(d);
    expect(feedContentDigest('Title!', 'Body\n\nMore.\n')).not.toBe(d);
    expect(feedContentDigest('Title', 'Body\n\nMore!\n')).not.toBe(d);
  });
});

describe('feed dates', () => {
  const now = new Date('2026-05-01T12:34:56.789Z');
  const item = (identifier: string | undefined, hash: string, published = day('2026-04-01')) => ({ identifier, hash, published });

  it('without a record every entry is updated at its publish date, and recorded so', () => {
    const { updated, record } = settleFeedDates([item('a', 'h1'), item(undefined, 'h2', day('2026-03-01'))], undefined, now);
    expect(updated).toEqual([day('2026-04-01'), day('2026-03-01')]);
    // An entry without identifier has no key to record under.
    expect(record).toEqual({ version: 1, entries: { a: { hash: 'h1', updated: '2026-04-01T00:00:00Z' } } });
  });

  it('unchanged content keeps the recorded date; changed content moves it to the build time (whole seconds)', () => {
    const previous: FeedDates = { version: 1, entries: { a: { hash: 'h1', updated: '2026-04-10T08:00:00Z' }, b: { hash: 'h1', updated: '2026-04-10T08:00:00Z' } } };
    const { updated, record } = settleFeedDates([item('a', 'h1'), item('b', 'h2'), item('c', 'h3')], previous, now);
    expect(updated.map((d) => d.toISOString())).toEqual(['2026-04-10T08:00:00.000Z', '2026-05-01T12:34:56.000Z', '2026-04-01T00:00:00.000Z']);
    expect(record.entries.b).toEqual({ hash: 'h2', updated: '2026-05-01T12:34:56Z' });
    // A change is always later than the date it replaces, even with a clock behind it.
    const behind = settleFeedDates([item('b', 'h3')], record, new Date('2026-01-01T00:00:00Z'));
    expect(behind.updated[0]!.toISOString()).toBe('2026-05-01T12:34:57.000Z');
  });

  it('drops recorded entries that are gone, unless kept (hidden, or a file that could not be read)', () => {
    const previous: FeedDates = { version: 1, entries: { gone: { hash: 'x', updated: '2026-01-01T00:00:00Z' }, hidden: { hash: 'y', updated: '2026-01-02T00:00:00Z' } } };
    const { record } = settleFeedDates([item('a', 'h1')], previous, now, (id) => id === 'hidden');
    expect(Object.keys(record.entries)).toEqual(['a', 'hidden']);
  });

  describe('the record file', () => {
    let dir = '';
    useTempDir((d) => (dir = d));

    it('round-trips, identifiers being data (even __proto__), and is rewritten only when it changed', async () => {
      const { record } = settleFeedDates([item('__proto__', 'h1'), item('b', 'h2')], undefined, now);
      expect(await recordFeedDates(dir, record)).toBe(true);
      expect(await recordFeedDates(dir, record)).toBe(false);
      const back = await loadFeedDates(dir);
      expect(Object.keys(back!.entries)).toEqual(['__proto__', 'b']);
      expect(settleFeedDates([item('__proto__', 'h1')], back, now).updated).toEqual([day('2026-04-01')]);
      expect(JSON.parse(await readFile(join(dir, FEED_DATES_FILE), 'utf8'))).toEqual(JSON.parse(JSON.stringify(record)));
    });

    it('a missing or foreign file is no record', async () => {
      expect(await loadFeedDates(join(dir, 'nowhere'))).toBeUndefined();
      await recordFeedDates(join(dir, 'other'), { version: 2, entries: {} } as unknown as FeedDates);
      expect(await loadFeedDates(join(dir, 'other'))).toBeUndefined();
    });
  });
});
