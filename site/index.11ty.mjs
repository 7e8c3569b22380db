// The updates, newest first, 20 a page: /, /page/2/, ... (the markup: _includes/index-page.njk).
// The pages are cut in src/site/data/tags.ts (`changelog.indexPages`); the pages to render: every
// one, but for those a build takes from its page cache (src/site/cache/page-cache.ts). Out of
// collections: the sitemap lists them from the data.
export const data = {
  pagination: { data: 'changelog.render.indexPages', size: 1, alias: 'indexPage' },
  eleventyExcludeFromCollections: true,
  layout: 'index-page.njk',
  permalink: (data) => `${data.indexPage.url}index.html`,
};

export function render() {
  return '';
}
