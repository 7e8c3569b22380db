// The page cache (src/site/cache/page-cache.ts, page-keys.ts) through the real build (buildSite,
// real Eleventy): after any sequence of changes to the content, a build that takes pages
// from the previous build's cache writes the same bytes as one that renders every page (a
// property over random sequences of changes); a corrupt or cut-short pack, or one of another
// fingerprint, is ignored with a note; a team's own template turns the page cache off.
// Correctness only: speed is the benchmark's (`npm run bench -- build`).
import { appendFile, copyFile, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PACKAGED_ELEVENTY_CONFIG, PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions, type BuildResult } from '../../../src/site/build/build.js';
import { PAGE_PACK_FILE } from '../../../src/site/cache/page-cache.js';
import { SEARCH_INDEX_DIR } from '../../../src/site/search/search-index.js';
import { useTempDir } from '../../helpers/cli.js';
import { dailyEntries, TAGS, WORKSPACE, writeContent, type EntrySpec } from '../../helpers/site-fixture.js';

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
async function differences(a: string, b: string): Promise<string[]> {
  const [x, y] = await Promise.all([siteFiles(a), siteFiles(b)]);
  return [...new Set([...x.keys(), ...y.keys()])].filter((n) => !x.get(n) || !y.get(n) || !x.get(n)!.equals(y.get(n)!)).sort();
}

/** The mirror a sequence of changes works on. */
interface Mirror {
  entries: EntrySpec[];
  tags: typeof TAGS;
  workspace: Record<string, unknown>;
}

/** One change to the content, as the service or a writer makes it. */
type Change =
  | { kind: 'new entry'; date: number; tags: string[] }
  | { kind: 'edited body' | 'edited title' | 'renamed slug' | 'entry removed' | 'tag removed'; at: number }
  | { kind: 'tag added'; at: number; tag: string }
  | { kind: 'date changed'; at: number; date: number }
  | { kind: 'tag colour changed'; tag: number; colour: string }
  | { kind: 'workspace name changed'; name: string }
  | { kind: 'theme changed'; theme: string };

const TAG_NAMES = ['New', 'Fix', 'Beta'];
const dayOf = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

const change: fc.Arbitrary<Change> = fc.oneof(
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
function apply(mirror: Mirror, c: Change): Mirror {
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
function startingMirror(): Mirror {
  const entries = dailyEntries(45, '2026-03-14', (i) => (i % 3 === 0 ? ['New'] : i % 3 === 1 ? ['Fix', 'Beta'] : [])).map((e, i) => ({
    ...e,
    slug: `update-${45 - i}`,
    body: `The first paragraph of update ${45 - i}.\n\nMore about it.\n`,
  }));
  return { entries, tags: TAGS, workspace: WORKSPACE };
}

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the page cache, through the real build', { timeout: 600_000 }, () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  /** Writes the mirror as the only content of `dir`. */
  async function writeMirror(mirror: Mirror): Promise<void> {
    await rm(join(dir, 'content'), { recursive: true, force: true });
    await writeContent(dir, { entries: mirror.entries, tags: mirror.tags, workspace: mirror.workspace });
  }

  let outputs = 0;
  function build(options: Partial<BuildOptions> = {}): Promise<BuildResult> {
    return buildSite({
      contentDir: join(dir, 'content'),
      siteDir: PACKAGED_SITE_DIR,
      outputDir: join(dir, `out-${++outputs}`),
      siteUrl: SITE_URL,
      root: dir,
      today: TODAY,
      now: NOW,
      search: false,
      ...options,
    });
  }
  const cacheDir = () => join(dir, 'cache');
  const pack = () => join(cacheDir(), PAGE_PACK_FILE);

  it('after any sequence of changes, a build from the cache writes the bytes of a build that renders every page', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 3 }), async (changes) => {
        await rm(cacheDir(), { recursive: true, force: true });
        let mirror = startingMirror();
        await writeMirror(mirror);
        // The scheduled build's case: a new output folder, the cache kept between builds.
        // (Over one folder in one process, the bundle plugin writes a stylesheet once per
        // process: a theme changed back would keep the newer one; a CLI build is a process.)
        await build({ cacheDir: cacheDir() });
        for (const c of changes) {
          mirror = apply(mirror, c);
          await writeMirror(mirror);
          const warm = await build({ cacheDir: cacheDir() });
          const cold = await build();
          expect(warm.cache?.pages.note).toBeUndefined();
          expect(await differences(cold.outputDir, warm.outputDir), `after ${JSON.stringify(changes)}`).toEqual([]);
          expect([...warm.files].sort()).toEqual([...cold.files].sort());
          await Promise.all([cold, warm].map((b) => rm(b.outputDir, { recursive: true, force: true })));
        }
      }),
      {
        numRuns: 6,
        // Every kind of change at least once, whatever the random runs draw.
        examples: [
          [
            [
              { kind: 'edited title', at: 10 },
              { kind: 'new entry', date: 0, tags: ['Beta'] },
              { kind: 'edited body', at: 3 },
              { kind: 'renamed slug', at: 20 },
              { kind: 'tag added', at: 30, tag: 'New' },
              { kind: 'tag removed', at: 31 },
              { kind: 'tag colour changed', tag: 0, colour: '#1e3a8a' },
              { kind: 'workspace name changed', name: 'Widgets & Co' },
              { kind: 'entry removed', at: 5 },
              { kind: 'date changed', at: 40, date: 1 },
              { kind: 'theme changed', theme: 'paper' },
            ],
          ],
        ],
      },
    );
  });

  it('renders only the pages whose key changed: one new entry renders its page, its neighbour, the index pages and its tag pages', async () => {
    const mirror = startingMirror();
    await writeMirror(mirror);
    const first = await build({ cacheDir: cacheDir() });
    const all = 45 + 3 + 3; // entry pages, index pages (20 a page), New, Fix and Beta (15 entries each: a page each)
    expect(first.cache?.pages).toEqual({ rendered: all, reused: 0, note: undefined });
    expect((await build({ cacheDir: cacheDir() })).cache?.pages).toEqual({ rendered: 0, reused: all, note: undefined });
    await writeMirror(apply(mirror, { kind: 'new entry', date: 0, tags: ['Beta'] }));
    const warm = await build({ cacheDir: cacheDir() });
    // The new page, the previous newest (its "Next" link), 3 index pages (every entry moves by one), Beta's page.
    expect(warm.cache?.pages).toEqual({ rendered: 1 + 1 + 3 + 1, reused: all + 1 - 6, note: undefined });
    const cold = await build();
    expect(await differences(cold.outputDir, warm.outputDir)).toEqual([]);
    expect(warm.pages).toBe(cold.pages);
  });

  it('over the previous output, a removed entry\'s page goes and the pages from the cache stay', async () => {
    const mirror = startingMirror();
    await writeMirror(mirror);
    const out = join(dir, 'site-out');
    await build({ cacheDir: cacheDir(), outputDir: out });
    const removed = apply(mirror, { kind: 'entry removed', at: 44 }); // the oldest, update 1 (Fix, Beta)
    await writeMirror(removed);
    const warm = await build({ cacheDir: cacheDir(), outputDir: out });
    // Its newer neighbour (no "Previous" link now), the last index page, the pages of Fix and Beta.
    expect(warm.cache?.pages).toMatchObject({ rendered: 4 });
    const cold = await build();
    expect(await differences(cold.outputDir, out)).toEqual([]);
    expect(await readdir(join(out, 'entries'))).not.toContain('update-1');
  });

  it('a corrupt, cut-short or foreign pack is ignored with a note, never served', async () => {
    await writeMirror(startingMirror());
    await build({ cacheDir: cacheDir() });
    const cold = await build();
    const bytes = await readFile(pack());
    // One byte of a page changed: its checksum finds it.
    const at = bytes.indexOf('The first paragraph of update 7.');
    expect(at).toBeGreaterThan(0);
    const flipped = Buffer.from(bytes);
    flipped.write('X', at + 4);
    await writeFile(pack(), flipped);
    const afterFlip = await build({ cacheDir: cacheDir() });
    expect(afterFlip.cache?.pages.reused).toBe(0);
    expect(afterFlip.cache?.pages.note).toMatch(/page cache .* was not used: it is corrupt \(the checksum of a page does not match\)/);
    expect(await differences(cold.outputDir, afterFlip.outputDir)).toEqual([]);
    // That build wrote a good pack again; cut short, it is not used.
    await writeFile(pack(), (await readFile(pack())).subarray(0, Math.floor(bytes.length / 2)));
    const cut = await build({ cacheDir: cacheDir() });
    expect(cut.cache?.pages.reused).toBe(0);
    expect(cut.cache?.pages.note).toMatch(/corrupt or incomplete/);
    expect(await differences(cold.outputDir, cut.outputDir)).toEqual([]);
    // Not a pack at all.
    await writeFile(pack(), 'not a pack');
    expect((await build({ cacheDir: cacheDir() })).cache?.pages.note).toMatch(/corrupt/);
    // Another fingerprint (another site URL, so another base path): not used.
    expect((await build({ cacheDir: cacheDir() })).cache?.pages).toMatchObject({ rendered: 0, note: undefined });
    const moved = await build({ cacheDir: cacheDir(), siteUrl: 'https://acme.github.io/other/' });
    expect(moved.cache?.pages.reused).toBe(0);
    expect(moved.cache?.pages.note).toMatch(/other site options/);
    expect(await readFile(join(moved.outputDir, 'index.html'), 'utf8')).not.toContain('/changelog/');
  });

  it("a template of the team's own turns the page cache off; its own stylesheet does not", async () => {
    await writeMirror(startingMirror());
    const site = join(dir, 'site');
    const css = join(site, '_includes/css/custom.css');
    await mkdir(join(site, '_includes/css'), { recursive: true });
    await writeFile(css, '.brand { color: teal; }\n');
    const first = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(first.cache?.pages.note).toBeUndefined();
    expect((await build({ cacheDir: cacheDir(), siteDir: site })).cache?.pages.rendered).toBe(0);
    // The stylesheet reaches every page (its bundle's name): a change renders them all.
    await writeFile(css, '.brand { color: navy; }\n');
    const restyled = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(restyled.cache?.pages.reused).toBe(0);
    expect(await differences((await build({ siteDir: site })).outputDir, restyled.outputDir)).toEqual([]);
    // A footer of its own: every page renders, and the build says why.
    const footer = await readFile(join(PACKAGED_SITE_DIR, '_includes/footer.njk'), 'utf8');
    await writeFile(join(site, '_includes/footer.njk'), `${footer}<!-- team -->\n`);
    const own = await build({ cacheDir: cacheDir(), siteDir: site });
    expect(own.cache?.pages.reused).toBe(0);
    expect(own.cache?.pages.note).toMatch(/templates of the site's own \(_includes\/footer\.njk\)/);
    expect(await readFile(join(own.outputDir, 'index.html'), 'utf8')).toContain('<!-- team -->');
  });

  it("keeps the page cache and the templates' base path with the packaged .eleventy.js (this repository's), not with one of the project's own", async () => {
    await writeMirror(startingMirror());
    // The packaged configuration imports ./dist/site/build/plugin.js from the project root.
    await symlink(join(REPO_ROOT, 'dist'), join(dir, 'dist'));
    await copyFile(PACKAGED_ELEVENTY_CONFIG, join(dir, '.eleventy.js'));
    const first = await build({ cacheDir: cacheDir() });
    expect(first.cache?.pages.note).toBeUndefined();
    const second = await build({ cacheDir: cacheDir() });
    expect(second.cache?.pages.rendered).toBe(0);
    expect(second.cache?.pages.reused).toBeGreaterThan(0);
    expect(await differences(first.outputDir, second.outputDir)).toEqual([]);
    // One line of the project's own: every page renders, and the build says why.
    await appendFile(join(dir, '.eleventy.js'), '// our own\n');
    const own = await build({ cacheDir: cacheDir() });
    expect(own.cache?.pages.reused).toBe(0);
    expect(own.cache?.pages.note).toMatch(/\.eleventy\.js/);
  });
});
