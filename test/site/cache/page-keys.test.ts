// The page keys (src/site/cache/page-keys.ts) follow from what each layout receives
// (src/site/data/layout-data.ts), not from a list of fields: a field added to an entry page's
// data changes the key of every entry page and of no other page, and a warm build through
// the real build (buildSite, real Eleventy) renders those pages again and takes the others
// from its page cache. The field is added the way a change to layout-data.ts adds one: to what
// its `pageData.entry` makes, which the plugin hands to the layouts and the keys hash. The
// preview's plans keep the bodies' digests between saves: the keys are the same either way.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageData } from '../../../src/site/data/layout-data.js';
import { loadSiteData } from '../../../src/site/render/site-data.js';
import { planPages, type BodyDigests } from '../../../src/site/cache/page-keys.js';
import { startingMirror, usePageCacheProject } from '../../helpers/site/page-cache-project.js';

const entryPage = pageData.entry;
/** An entry page's data with one more field: its getters kept (a body is read when a template asks). */
const withField: typeof entryPage = (e) =>
  Object.freeze(Object.defineProperties({} as ReturnType<typeof entryPage>, { ...Object.getOwnPropertyDescriptors(entryPage(e)), readingTime: { value: '1 min', enumerable: true } }));

/** Runs `fn` with the field added to what every entry page's layout receives, then takes it out. */
async function withAddedField<T>(fn: () => T | Promise<T>): Promise<T> {
  pageData.entry = withField;
  try {
    return await fn();
  } finally {
    pageData.entry = entryPage;
  }
}

describe('page keys from what each layout receives', { timeout: 600_000 }, () => {
  const { writeMirror, build, cacheDir, dir } = usePageCacheProject();

  it('a field added to an entry page’s data changes the key of every entry page, and of no other page', async () => {
    await writeMirror(startingMirror());
    const data = await loadSiteData(join(dir(), 'content'), { today: '2026-03-15' });
    const keys = () => new Map(planPages(data, 'fingerprint', () => false).pages.map((p) => [p.path, p.key]));
    const before = keys();
    const after = await withAddedField(keys);
    const changed = [...after].filter(([path, key]) => before.get(path) !== key).map(([path]) => path);
    expect(data.entries.length).toBeGreaterThan(0);
    expect(changed.sort()).toEqual(data.entries.map((e) => `${e.url.slice(1)}index.html`).sort());
  });

  it('bodies’ digests kept between plans give the keys a plan without them gives, and an edited body changes its pages’ keys', async () => {
    await writeMirror(startingMirror());
    const data = await loadSiteData(join(dir(), 'content'), { today: '2026-03-15' });
    const keys = (d: typeof data, digests?: BodyDigests) => new Map(planPages(d, 'fingerprint', () => false, digests).pages.map((p) => [p.path, p.key]));
    const digests: BodyDigests = new Map();
    expect(keys(data, digests)).toEqual(keys(data));
    expect(digests.size).toBeGreaterThan(0);
    // The first entry's body edited (a new string, as a save renders it): its digest is not taken from the plan before.
    const [first, ...rest] = data.entries;
    const entries = [{ ...first!, html: `${first!.html}<p>edited</p>` }, ...rest];
    // As loaded, the pages to render are every page (the plan keys `render`).
    const edited = { ...data, entries, render: { ...data.render, entries } };
    const after = keys(edited, digests);
    expect(after).toEqual(keys(edited));
    expect(after.get(`${first!.url.slice(1)}index.html`)).not.toBe(keys(data).get(`${first!.url.slice(1)}index.html`));
  });

  it('a warm build with the field renders the entry pages again and takes the others from the page cache', async () => {
    await writeMirror(startingMirror());
    const first = await build({ cacheDir: cacheDir() });
    const entries = first.cache!.pages.rendered - 3 - 3; // but the index pages and the tag pages
    expect((await build({ cacheDir: cacheDir() })).cache?.pages).toEqual({ rendered: 0, reused: first.cache!.pages.rendered, note: undefined });
    await withAddedField(async () => {
      expect((await build({ cacheDir: cacheDir() })).cache?.pages).toEqual({ rendered: entries, reused: 6, note: undefined });
      expect((await build({ cacheDir: cacheDir() })).cache?.pages).toEqual({ rendered: 0, reused: entries + 6, note: undefined });
    });
  });
});
