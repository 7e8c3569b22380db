// With several products: the first product's pages of an earlier one-workspace site
// (/entries/<slug>/, /tags/<slug>/, ...) moved under /<key>/; their old URLs become redirect
// pages, static (no script), with the new page as canonical (docs/site.md#urls-never-move).
// None for one workspace. The pages to render: every one, but for those a build takes from its
// page cache (src/site/cache/page-cache.ts).
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const data = {
  pagination: { data: 'changelog.render.redirects', size: 1, alias: 'redirect' },
  eleventyExcludeFromCollections: true,
  permalink: (data) => `${data.redirect.from}index.html`,
};

export function render(data) {
  const to = escape(this.url(data.redirect.to));
  const canonical = escape(this.siteAbsoluteUrl(data.redirect.to, data.changelog.siteUrl));
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Moved</title>
  <meta name="robots" content="noindex">
  <link rel="canonical" href="${canonical}">
  <meta http-equiv="refresh" content="0; url=${to}">
</head>
<body>
  <p>This page moved to <a href="${to}">${canonical}</a>.</p>
</body>
</html>
`;
}
