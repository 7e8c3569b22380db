// The tag index at /tags/, when any visible entry has a tag (the markup: _includes/tags-page.njk).
// Out of collections: the sitemap lists it from the data.
export const data = {
  layout: 'tags-page.njk',
  title: 'Tags',
  eleventyExcludeFromCollections: true,
  permalink: (data) => (data.changelog.tagList.length > 0 ? '/tags/index.html' : false),
};

export function render() {
  return '';
}
