// With several products: each product's tag index at /<key>/tags/, when any of its visible
// entries has a tag (the markup: _includes/tags-page.njk). None for one workspace (its /tags/ is
// tags.11ty.mjs). Out of collections: the sitemap lists it from the data.
export const data = {
  pagination: { data: 'changelog.products', size: 1, alias: 'product' },
  layout: 'tags-page.njk',
  title: 'Tags',
  eleventyExcludeFromCollections: true,
  permalink: (data) => (data.changelog.sections?.[data.product.key]?.tagList.length > 0 ? `${data.product.url}tags/index.html` : false),
};

export function render() {
  return '';
}
