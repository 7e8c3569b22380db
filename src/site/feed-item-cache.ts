/**
 * Each entry's item is rendered once per feed format and reused by every feed that holds
 * it: the site's feed and its tags' (an entry with three tags is in four feeds of each
 * format). The item markup does not depend on the feed it is in (`site/_includes/feeds/`),
 * so the feeds of every tag cost little more than writing them. Two Nunjucks filters, used
 * by the feed templates around the item's markup:
 *
 * ```njk
 * {%- set item = entry | cachedFeedItem("atom") %}
 * {%- if not item %}{% set item %}<entry>...</entry>{% endset %}{% set item = item | keepFeedItem(entry, "atom") %}{% endif %}
 * {{- item | safe }}
 * ```
 *
 * Keyed by the entry object, which the site data hands to every template as it is (it is
 * frozen, so Eleventy does not copy it), and emptied as each build starts (`dev` rebuilds
 * in one process, possibly with changed feed templates and the same data).
 *
 * @module
 */

interface FilterConfig {
  addFilter(name: string, fn: (...args: never[]) => unknown): void;
  /** Eleventy's events (`eleventy.before`: a build starts). */
  on?(event: string, fn: () => void): void;
}

/** Registers `cachedFeedItem(entry, format)` (the item rendered before, or `''`) and `keepFeedItem(markup, entry, format)` (stores and returns it). */
export function addFeedItemCache(eleventyConfig: FilterConfig): void {
  let rendered = new WeakMap<object, Map<string, string>>();
  eleventyConfig.on?.('eleventy.before', () => {
    rendered = new WeakMap();
  });
  eleventyConfig.addFilter('cachedFeedItem', (entry: object, format: string) => rendered.get(entry)?.get(format) ?? '');
  eleventyConfig.addFilter('keepFeedItem', (markup: unknown, entry: object, format: string) => {
    const text = String(markup);
    let byFormat = rendered.get(entry);
    if (!byFormat) rendered.set(entry, (byFormat = new Map()));
    byFormat.set(format, text);
    return text;
  });
}
