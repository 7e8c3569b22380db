/**
 * Each entry's item is rendered once per feed format and reused by every feed that holds
 * it (see `BuildState` in build-memo.ts): two Nunjucks filters, used by the feed templates around the
 * item's markup:
 *
 * ```njk
 * {%- set item = entry | cachedFeedItem("atom") %}
 * {%- if not item %}{% set item %}<entry>...</entry>{% endset %}{% set item = item | keepFeedItem(entry, "atom") %}{% endif %}
 * {{- item | safe }}
 * ```
 *
 * @module
 */
import { BuildState, type BuildEvents } from './build-memo.js';

interface FilterConfig extends BuildEvents {
  addFilter(name: string, fn: (...args: never[]) => unknown): void;
}

/**
 * Registers `cachedFeedItem(entry, format)` (the item rendered before in this build, or
 * `''`) and `keepFeedItem(markup, entry, format)` (stores and returns it).
 *
 * @param state the configuration's per-build state (default: one of its own, emptied as each build starts).
 */
export function addFeedItemCache(eleventyConfig: FilterConfig, state: BuildState = BuildState.attach(eleventyConfig)): void {
  eleventyConfig.addFilter('cachedFeedItem', (entry: object, format: string) => state.feedItem(entry, format) ?? '');
  eleventyConfig.addFilter('keepFeedItem', (markup: unknown, entry: object, format: string) => {
    const text = String(markup);
    state.keepFeedItem(entry, format, text);
    return text;
  });
}
