/**
 * The Eleventy plugin that turns the mirror into a site: registers the `changelog` global
 * data (see `data.ts`), the feed plugin's filters, and passthrough of `site/css`.
 * `.eleventy.js` adds it; `build.ts` runs Eleventy with it programmatically.
 *
 * @module
 */
import { join } from 'node:path';
import rssPlugin from '@11ty/eleventy-plugin-rss';
import { loadSiteData } from './data.js';

/** Options of {@link changelogSitePlugin}. Paths are absolute or relative to the working directory. */
export interface ChangelogSitePluginOptions {
  /** The mirror. Default: `CHANGELOG_CONTENT_DIR` or `content`. */
  contentDir?: string;
  /** Public URL of the site (feeds). Default: `CHANGELOG_SITE_URL` or `http://localhost:8080/`. */
  siteUrl?: string;
  /** The templates (Eleventy's input). Default: `CHANGELOG_SITE_DIR` or `site`. */
  siteDir?: string;
}

/** Global data key through which `build.ts` passes options to the plugin `.eleventy.js` adds. */
export const OPTIONS_KEY = 'changelogSyncOptions';

interface EleventyConfigLike {
  addPlugin(plugin: unknown, options?: unknown): void;
  addGlobalData(name: string, data: unknown): void;
  addPassthroughCopy(path: string | Record<string, string>): void;
  addFilter(name: string, fn: (...args: never[]) => unknown): void;
  addWatchTarget(path: string): void;
  globalData?: Record<string, unknown>;
}

/**
 * Eleventy plugin. Options passed by `build.ts` (through the {@link OPTIONS_KEY} global
 * data, since Eleventy runs the programmatic config callback before `.eleventy.js`) win
 * over the plugin's own options, which win over the environment.
 */
export default function changelogSitePlugin(eleventyConfig: EleventyConfigLike, options: ChangelogSitePluginOptions = {}): void {
  const resolved = (): Required<ChangelogSitePluginOptions> => {
    const injected = (eleventyConfig.globalData?.[OPTIONS_KEY] ?? {}) as ChangelogSitePluginOptions;
    return {
      contentDir: injected.contentDir ?? options.contentDir ?? process.env.CHANGELOG_CONTENT_DIR ?? 'content',
      siteUrl: injected.siteUrl ?? options.siteUrl ?? process.env.CHANGELOG_SITE_URL ?? 'http://localhost:8080/',
      siteDir: injected.siteDir ?? options.siteDir ?? process.env.CHANGELOG_SITE_DIR ?? 'site',
    };
  };
  eleventyConfig.addPlugin(rssPlugin);
  eleventyConfig.addGlobalData('changelog', async () => {
    const o = resolved();
    return loadSiteData(o.contentDir, { siteUrl: o.siteUrl });
  });
  eleventyConfig.addWatchTarget(resolved().contentDir);
  eleventyConfig.addPassthroughCopy({ [join(resolved().siteDir, 'css')]: 'css' });
  eleventyConfig.addFilter('isoDate', (d: Date | string) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10)));
  eleventyConfig.addFilter('readableDate', (d: Date | string) =>
    new Date(d instanceof Date ? d : `${String(d).slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }),
  );
}
