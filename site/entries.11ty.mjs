// One page per visible entry at /entries/<slug>/ (the markup: _includes/entry-page.njk).
// Routes are JavaScript so that Eleventy compiles no template per page: the layouts it
// renders are compiled once, which keeps a 10,000-entry build fast.
export const data = {
  pagination: { data: 'changelog.entries', size: 1, alias: 'entry', addAllPagesToCollections: true },
  layout: 'entry-page.njk',
  permalink: (data) => `${data.entry.url}index.html`,
};

export function render() {
  return '';
}
