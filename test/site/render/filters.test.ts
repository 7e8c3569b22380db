// The packaged templates' `url` filter: Eleventy's own, each URL worked out once
// (base-path.ts `rememberingUrlFilter`). Same results as Eleventy's filter, for the kinds
// of value templates pass it, under a base path and at `/`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rememberingUrlFilter, type UrlFilter } from '../../../src/site/render/base-path.js';

/** Eleventy 3's own `url` filter, as a build under `pathPrefix` has it (from its configuration). */
async function eleventyUrl(pathPrefix: string): Promise<UrlFilter> {
  const { default: Eleventy } = await import('@11ty/eleventy');
  const input = await mkdtemp(join(tmpdir(), 'url-filter-'));
  let url: UrlFilter | undefined;
  try {
    const eleventy = new Eleventy(input, join(input, '_site'), {
      pathPrefix,
      // As the site plugin gets it: from a plugin, run once Eleventy's defaults are in.
      config(eleventyConfig: { addPlugin(plugin: (config: { getFilter(name: string): UrlFilter }) => void): void }) {
        eleventyConfig.addPlugin((config) => (url = config.getFilter('url')));
      },
    });
    await eleventy.init();
  } finally {
    await rm(input, { recursive: true, force: true });
  }
  if (!url) throw new Error("Eleventy's configuration has no url filter");
  return url;
}

const VALUES = ['/', '/entries/a/', '/tags/ui/feed.xml', '/feed.xml?x=1#y', 'https://example.com/a', '//cdn.example.com/x.js', '#install', 'relative/page/', '', '/entries/a/'];

describe('rememberingUrlFilter', () => {
  for (const prefix of ['/repo/', '/']) {
    it(`gives Eleventy's url filter's result for every value, under ${prefix}`, async () => {
      const original = await eleventyUrl(prefix);
      let calls = 0;
      const counted: UrlFilter = function (this: unknown, value, override) {
        calls++;
        return original.call(this, value, override);
      };
      const url = rememberingUrlFilter(counted);
      for (const round of [1, 2]) {
        for (const value of VALUES) expect([round, value, url.call({}, value)]).toEqual([round, value, original.call({}, value)]);
      }
      // Each distinct value once, though the list has a repeat and went by twice.
      expect(calls).toBe(new Set(VALUES).size);
      // A path prefix of the caller's own is not remembered as the build's.
      expect(url.call({}, '/entries/a/', '/other/')).toBe('/other/entries/a/');
      expect(url.call({}, '/entries/a/')).toBe(original.call({}, '/entries/a/'));
      expect(url.call({}, undefined)).toBe(original.call({}, undefined));
    });
  }
});
