// Eleventy configuration of the changelog site (Eleventy 3, ESM).
// `changelog-sync build` and `changelog-sync dev` run Eleventy with this file (input: the
// packaged site/ with your site/ laid over it, output: _site/ unless configured otherwise),
// then index the entry pages with Pagefind. Plain Eleventy builds the pages too once
// `npm run build` has compiled dist/: `npx @11ty/eleventy --input=site --output=_site`
// (without the search index: `npx pagefind --site _site` adds it). A site served under a
// base path (GitHub Pages: https://OWNER.github.io/REPO/) needs `--pathprefix=/REPO/` too;
// `changelog-sync build` sets it from the site URL. Under plain Eleventy the plugin takes
// the content folder, site URL, site folder and theme from the project's configuration, as
// the commands do: CHANGELOG_* variables over changelog.config.json over the defaults.
// Add your own filters, shortcodes and passthrough copies below the plugin.
import changelogSite from './dist/site/pipeline/plugin.js';

/** @param {import("@11ty/eleventy").UserConfig} eleventyConfig */
export default function (eleventyConfig) {
  eleventyConfig.addPlugin(changelogSite);
}

export const config = {
  // Relative to the input directory (site/). Input and output are given by the caller.
  dir: { includes: '_includes' },
  // 11ty.js covers the .11ty.mjs routes (entries, index pages, tag pages).
  templateFormats: ['njk', 'html', '11ty.js'],
  htmlTemplateEngine: 'njk',
};
