// The updates, newest first, 20 a page: /, /page/2/, ... (the markup: _includes/index-page.njk).
export const data = {
  pagination: { data: 'changelog.entries', size: 20, alias: 'pageEntries', addAllPagesToCollections: true, generatePageOnEmptyData: true },
  layout: 'index-page.njk',
  permalink: (data) => (data.pagination.pageNumber > 0 ? `/page/${data.pagination.pageNumber + 1}/index.html` : '/index.html'),
};

export function render() {
  return '';
}
