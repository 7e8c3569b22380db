// The tag index at /tags/, when any visible entry has a tag (the markup: _includes/tags-page.njk).
export const data = {
  layout: 'tags-page.njk',
  title: 'Tags',
  permalink: (data) => (data.changelog.tagList.length > 0 ? '/tags/index.html' : false),
};

export function render() {
  return '';
}
