// Every page of every tag: /tags/<slug>/, /tags/<slug>/page/2/, ... (the markup:
// _includes/tag-page.njk). The pages are cut in src/site/tags.ts (20 entries a page).
export const data = {
  pagination: { data: 'changelog.tagPages', size: 1, alias: 'tagPage', addAllPagesToCollections: true },
  layout: 'tag-page.njk',
  permalink: (data) => `${data.tagPage.url}index.html`,
};

export function render() {
  return '';
}
