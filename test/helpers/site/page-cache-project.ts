// The page cache's project (test/site/cache/page-cache.test.ts and
// test/e2e/site/page-cache-after-any-changes.test.ts): a mirror of 45 entries, the changes the
// service or a writer makes to it, and the real build (buildSite, real Eleventy) of it into a
// new output folder each time, with or without the page cache.
import { readFile, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions, type BuildResult } from '../../../src/site/pipeline/build.js';
import { PAGE_PACK_FILE } from '../../../src/site/cache/page-cache.js';
import { SEARCH_INDEX_DIR } from '../../../src/site/search/search-index.js';
import { useTempDir } from '../process/cli.js';
import { dailyEntries, TAGS, WORKSPACE, writeContent, type EntrySpec } from './site-fixture.js';

const TODAY = '2026-03-15';
const NOW = new Date('2026-03-15T12:00:00Z');
const SITE_URL = 'https://acme.github.io/changelog/';

/** Every file of a built site but the search index's, by path relative to it. */
async function siteFiles(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const d of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const rel = relative(dir, join(d.parentPath, d.name));
    if (d.isFile() && !rel.startsWith(`${SEARCH_INDEX_DIR}/`)) out.set(rel, await readFile(join(d.parentPath, d.name)));
  }
  return out;
}

/** The paths whose bytes differ between two sites (or that only one has), outside the search index. */
export async function differences(a: string, b: string): Promise<string[]> {
  const [x, y] = await Promise.all([siteFiles(a), siteFiles(b)]);
  return [...new Set([...x.keys(), ...y.keys()])].filter((n) => !x.get(n) || !y.get(n) || !x.get(n)!.equals(y.get(n)!)).sort();
}

/** The mirror a sequence of changes works on. */
export interface Mirror {
  entries: EntrySpec[];
  tags: typeof TAGS;
  workspace: Record<string, unknown>;
}

/** One change to the content, as the service or a writer makes it. */
export type Change =
  | { kind: 'new entry'; date: number; tags: string[] }
  | { kind: 'edited body' | 'edited title' | 'renamed slug' | 'entry removed' | 'tag removed'; at: number }
  | { kind: 'tag added'; at: number; tag: string }
  | { kind: 'date changed'; at: number; date: number }
  | { kind: 'tag colour changed'; tag: number; colour: string }
  | { kind: 'workspace name changed'; name: string }
  | { kind: 'theme changed'; theme: string };

const TAG_NAMES = ['New', 'Fix', 'Beta'];
const dayOf = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

export const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('new entry' as const), date: fc.nat(60), tags: fc.subarray(TAG_NAMES) }),
  ...(['edited body', 'edited title', 'renamed slug', 'entry removed', 'tag removed'] as const).map((kind) => fc.record({ kind: fc.constant(kind), at: fc.nat() })),
  fc.record({ kind: fc.constant('tag added' as const), at: fc.nat(), tag: fc.constantFrom(...TAG_NAMES) }),
  fc.record({ kind: fc.constant('date changed' as const), at: fc.nat(), date: fc.nat(60) }),
  fc.record({ kind: fc.constant('tag colour changed' as const), tag: fc.nat(TAGS.length - 1), colour: fc.constantFrom('#1e3a8a', '#7f1d1d', '#14532d') }),
  fc.record({ kind: fc.constant('workspace name changed' as const), name: fc.constantFrom('Acme', 'Acme Cloud', 'Widgets & Co') }),
  fc.record({ kind: fc.constant('theme changed' as const), theme: fc.constantFrom('commit', 'paper', 'mono') }),
);

let made = 0;

/** `mirror` after `c` (a copy). */
export function apply(mirror: Mirror, c: Change): Mirror {
  const entries = mirror.entries.map((e) => ({ ...e, tags: [...(e.tags ?? [])] }));
  const at = 'at' in c ? c.at % entries.length : 0;
  const e = entries[at]!;
  switch (c.kind) {
    case 'new entry':
      made++;
      entries.push({ title: `Added ${made}`, slug: `added-${made}`, date: dayOf(c.date), tags: c.tags, body: `What changed in ${made}.\n\nDetails.\n` });
      break;
    case 'edited body':
      e.body = `${e.body ?? ''}\nAn edit ${++made}.\n`;
      break;
    case 'edited title':
      e.title = `${e.title} (edited ${++made})`;
      break;
    case 'renamed slug':
      e.slug = `renamed-${++made}`;
      break;
    case 'entry removed':
      if (entries.length > 1) entries.splice(at, 1);
      break;
    case 'tag added':
      e.tags = [...new Set([...(e.tags ?? []), c.tag])];
      break;
    case 'tag removed':
      e.tags = (e.tags ?? []).slice(1);
      break;
    case 'date changed':
      e.date = dayOf(c.date);
      break;
    case 'tag colour changed':
      return { ...mirror, entries, tags: mirror.tags.map((t, i) => (i === c.tag ? { ...t, bg_color: c.colour, text_color: '#ffffff' } : t)) };
    case 'workspace name changed':
      return { ...mirror, entries, workspace: { ...mirror.workspace, name: c.name } };
    case 'theme changed':
      return { ...mirror, entries, workspace: { ...mirror.workspace, theme: c.theme } };
  }
  return { ...mirror, entries };
}

/** 45 entries (3 index pages), a slug each, tags on most. */
export function startingMirror(): Mirror {
  const entries = dailyEntries(45, '2026-03-14', (i) => (i % 3 === 0 ? ['New'] : i % 3 === 1 ? ['Fix', 'Beta'] : [])).map((e, i) => ({
    ...e,
    slug: `update-${45 - i}`,
    body: `The first paragraph of update ${45 - i}.\n\nMore about it.\n`,
  }));
  return { entries, tags: TAGS, workspace: WORKSPACE };
}

/** What {@link usePageCacheProject} gives the tests of a describe block. */
export interface PageCacheProject {
  /** The test's project folder. */
  dir: () => string;
  /** Writes the mirror as the only content of the project. */
  writeMirror: (mirror: Mirror) => Promise<void>;
  /** buildSite of the project's content into a new output folder (no search index), with `options` over it. */
  build: (options?: Partial<BuildOptions>) => Promise<BuildResult>;
  /** The page cache's folder, and its pack file. */
  cacheDir: () => string;
  pack: () => string;
}

/** A project folder for each test of the enclosing describe block, and its builds. */
export function usePageCacheProject(): PageCacheProject {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  let outputs = 0;
  const cacheDir = () => join(dir, 'cache');
  return {
    dir: () => dir,
    writeMirror: async (mirror) => {
      await rm(join(dir, 'content'), { recursive: true, force: true });
      await writeContent(dir, { entries: mirror.entries, tags: mirror.tags, workspace: mirror.workspace });
    },
    build: (options = {}) =>
      buildSite({
        contentDir: join(dir, 'content'),
        siteDir: PACKAGED_SITE_DIR,
        outputDir: join(dir, `out-${++outputs}`),
        siteUrl: SITE_URL,
        root: dir,
        today: TODAY,
        now: NOW,
        search: false,
        ...options,
      }),
    cacheDir,
    pack: () => join(cacheDir(), PAGE_PACK_FILE),
  };
}
