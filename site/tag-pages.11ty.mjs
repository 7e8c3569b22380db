// Every page of every tag: /tags/<slug>/, /tags/<slug>/page/2/, ... (the markup:
// _includes/tag-page.njk). The pages are cut in src/site/data/tags.ts (20 entries a page); the
// pages to render: every one, but for those a build takes from its page cache
// (src/site/cache/page-cache.ts). Out of collections: the sitemap lists them from the data.
export const data = {
  pagination: { data: 'changelog.render.tagPages', size: 1, alias: 'tagPage' },
  eleventyExcludeFromCollections: true,
  layout: 'tag-page.njk',
  permalink: (data) => `${data.tagPage.url}index.html`,
};

export function render() {
  return '';
}
