// Feed items stay the same items when the service renames an entry's slug: the pull and build
// commands (in the test's process as the CLI runs them, helpers/process/command.ts) pull from the
// emulator over HTTP and build (as the scheduled job does, recording the feed dates), the slug is renamed on the service, pulled and built again. In the site's
// feeds and the tag's (Atom, RSS, JSON Feed) the entry keeps its id and, its content
// unchanged, its `updated`; a change of its content moves `updated` (and nothing else's).
// A fresh copy of the project built under another site URL gives the same ids and dates.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/core/config.js';
import type { Reporter } from '../../../src/cli/output/reporter.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { useEmulatorFixture } from '../../helpers/service/emulator.js';

const SITE_URL = 'https://acme.github.io/changelog/';
const TAG = 'Platform';

/** What one feed says of an entry: its id, its link and (Atom, JSON Feed) its `updated`. */
interface Item {
  id: string;
  link: string;
  updated?: string;
}

type Feeds = Record<string, Map<string, Item>>;

/** The six feeds of a built site (the site's and the tag's), each as title -> item. */
async function readFeeds(out: string): Promise<Feeds> {
  const feeds: Feeds = {};
  for (const [name, prefix] of [['site', ''], ['tag', 'tags/platform/']] as const) {
    const atom = parseAtomFeed(await readFile(join(out, prefix, 'feed.xml'), 'utf8'));
    const rss = parseRssFeed(await readFile(join(out, prefix, 'rss.xml'), 'utf8'));
    const json = parseJsonFeed(JSON.parse(await readFile(join(out, prefix, 'feed.json'), 'utf8')));
    const title = (t: unknown) => (typeof t === 'string' ? t : (t as { value: string }).value);
    feeds[`${name} atom`] = new Map(atom.entries!.map((e) => [title(e.title), { id: e.id!, link: e.links![0]!.href!, updated: e.updated }]));
    feeds[`${name} rss`] = new Map(rss.items!.map((i) => [i.title!, { id: i.guid!.value!, link: i.link! }]));
    feeds[`${name} json`] = new Map(json.items!.map((i) => [i.title!, { id: i.id!, link: i.url!, updated: i.date_modified }]));
  }
  return feeds;
}

/** The item of `title` in every feed. */
function itemsOf(feeds: Feeds, title: string): Record<string, Item> {
  return Object.fromEntries(Object.entries(feeds).map(([name, items]) => [name, items.get(title)!]));
}

describe('feed items across a slug rename and a content change', () => {
  const ctx = useEmulatorFixture();
  let dir = '';
  useTempDir((d) => (dir = d));
  let renamed = '';
  let other = '';

  /** A command in GitHub Actions (`GITHUB_ACTIONS=true`) with the site URL, as the scheduled job runs it. */
  const cli = (body: (config: Config, reporter: Reporter) => Promise<number>, cwd = dir, extra: Record<string, string | undefined> = {}) =>
    runCommand(body, { cwd, env: { ...ctx.env, CHANGELOG_SITE_URL: SITE_URL, GITHUB_ACTIONS: 'true', ...extra } });
  const pull = (config: Config, reporter: Reporter) => pullCommand(config, reporter);
  /** `build` as the scheduled job runs it (GitHub Actions: the feed dates are recorded). */
  const build = async (cwd = dir, extra: Record<string, string | undefined> = {}) => {
    const r = await cli((config, reporter) => buildCommand(config, reporter), cwd, extra);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return readFeeds(join(cwd, '_site'));
  };

  beforeAll(async () => {
    const { fx } = ctx;
    renamed = fx.store.insertEntry(fx.ws, { title: 'Faster exports', slug: 'faster-exports', publish_at: '2026-03-02', content: '<p>Exports are faster.</p>' }).identifier;
    other = fx.store.insertEntry(fx.ws, { title: 'Dark mode', slug: 'dark-mode', publish_at: '2026-03-01', content: '<p>Dark mode is here.</p>' }).identifier;
    const pulled = await cli(pull);
    expect(pulled.code, pulled.stderr).toBe(0);
    // The writer tags both entries (tags are the writer's own field: pull keeps them).
    for (const name of ['2026-03-02-faster-exports.md', '2026-03-01-dark-mode.md']) {
      const file = join(dir, 'content/entries', name);
      await writeFile(file, (await readFile(file, 'utf8')).replace(/^---\n/, `---\ntags:\n  - ${TAG}\n`));
    }
  });

  it('keeps ids and updated through a rename; a content change moves updated only; a fresh copy under another URL agrees', async () => {
    const { fx } = ctx;
    const first = await build();
    const before = itemsOf(first, 'Faster exports');
    expect(Object.keys(before)).toHaveLength(6);
    for (const [feed, item] of Object.entries(before)) {
      expect(item, feed).toBeDefined();
      expect(item.id, feed).toBe(`urn:uuid:${renamed}`);
      expect(item.link, feed).toBe(`${SITE_URL}entries/faster-exports/`);
      if (!feed.endsWith('rss')) expect(Date.parse(item.updated!), feed).toBe(Date.parse('2026-03-02T00:00:00Z'));
    }
    const record = JSON.parse(await readFile(join(dir, '.changelog/feed-dates.json'), 'utf8')) as { entries: Record<string, { updated: string }> };
    expect(Object.keys(record.entries).sort()).toEqual([renamed, other].sort());

    // Renamed on the service: pulled (the file moves, the tag stays) and built again.
    fx.store.updateEntry(fx.ws, renamed, { slug: 'exports-twice-as-fast' });
    const pulled = await cli(pull);
    expect(pulled.code, pulled.stderr).toBe(0);
    const second = await build();
    const after = itemsOf(second, 'Faster exports');
    for (const [feed, item] of Object.entries(after)) {
      expect(item, feed).toBeDefined();
      expect(item.link, feed).toBe(`${SITE_URL}entries/exports-twice-as-fast/`);
      expect(item.id, feed).toBe(before[feed]!.id);
      expect(item.updated, feed).toBe(before[feed]!.updated);
    }

    // The content changes on the service: updated moves to the build's time, the id stays.
    fx.store.updateEntry(fx.ws, renamed, { content: '<p>Exports are twice as fast.</p>' });
    expect((await cli(pull)).code).toBe(0);
    const buildStarted = Math.floor(Date.now() / 1000) * 1000;
    const third = await build();
    const buildEnded = Date.now();
    const changed = itemsOf(third, 'Faster exports');
    for (const [feed, item] of Object.entries(changed)) {
      expect(item.id, feed).toBe(before[feed]!.id);
      if (feed.endsWith('rss')) continue;
      const t = Date.parse(item.updated!);
      expect(t, feed).toBeGreaterThanOrEqual(buildStarted);
      expect(t, feed).toBeLessThanOrEqual(buildEnded);
    }
    // The other entry did not change: its items are as they were.
    expect(itemsOf(third, 'Dark mode')).toEqual(itemsOf(first, 'Dark mode'));
    // The feeds' own updated follows their newest item.
    const atom = parseAtomFeed(await readFile(join(dir, '_site/tags/platform/feed.xml'), 'utf8'));
    expect(atom.updated).toBe(changed['tag atom']!.updated);

    // A fresh copy of the project (what a clone has: content and .changelog, no site),
    // built outside CI under another site URL: the same ids and dates, other links.
    const copy = join(dir, 'clone');
    await cp(join(dir, 'content'), join(copy, 'content'), { recursive: true });
    await cp(join(dir, '.changelog'), join(copy, '.changelog'), { recursive: true });
    const elsewhere = await build(copy, { GITHUB_ACTIONS: undefined, CHANGELOG_SITE_URL: 'https://changelog.acme.test/' });
    for (const title of ['Faster exports', 'Dark mode']) {
      const here = itemsOf(third, title);
      for (const [feed, item] of Object.entries(itemsOf(elsewhere, title))) {
        expect(item.id, `${title}: ${feed}`).toBe(here[feed]!.id);
        expect(item.updated, `${title}: ${feed}`).toBe(here[feed]!.updated);
        expect(item.link, `${title}: ${feed}`).toMatch(/^https:\/\/changelog\.acme\.test\/entries\//);
      }
    }
  }, 240_000);
});
