// One page per visible entry at /entries/<slug>/ (the markup: _includes/entry-page.njk).
// Routes are JavaScript so that Eleventy compiles no template per page: the layouts it
// renders are compiled once, which keeps a 10,000-entry build fast. The pages to render:
// every entry's, but for those a build takes from its page cache (src/site/cache/page-cache.ts).
// Out of collections: the sitemap lists the entries from the data, and Eleventy keeps less.
export const data = {
  pagination: { data: 'changelog.render.entries', size: 1, alias: 'entry' },
  eleventyExcludeFromCollections: true,
  layout: 'entry-page.njk',
  permalink: (data) => `${data.entry.url}index.html`,
};

export function render() {
  return '';
}
