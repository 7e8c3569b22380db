// Eleventy configuration of the changelog site (Eleventy 3, ESM).
// `changelog-sync build` and `changelog-sync dev` run Eleventy with this file (input: site/,
// output: _site/ unless configured otherwise); plain Eleventy works too once `npm run build`
// has compiled dist/: `npx @11ty/eleventy --input=site --output=_site`.
// Add your own filters, shortcodes and passthrough copies below the plugin.
import changelogSite from './dist/site/plugin.js';

/** @param {import("@11ty/eleventy").UserConfig} eleventyConfig */
export default function (eleventyConfig) {
  eleventyConfig.addPlugin(changelogSite);
}

export const config = {
  // Relative to the input directory (site/). Input and output are given by the caller.
  dir: { includes: '_includes' },
  templateFormats: ['njk', 'html', '11ty.js'],
  htmlTemplateEngine: 'njk',
};
