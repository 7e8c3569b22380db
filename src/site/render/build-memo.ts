/**
 * The site plugin's per-build state: what the filters remember within one Eleventy build,
 * in one place, emptied as the next build starts (`eleventy.before`). `dev` rebuilds in one
 * process (Eleventy's watch mode): an edited entry keeps its URL, and a feed template may
 * change while the data stays, so anything kept from the last build would put its feed
 * bodies in this one's feeds.
 *
 * What it holds:
 *
 * - each entry's HTML with absolute URLs (the `feedHtml` filter), by the entry page's
 *   absolute URL: converted once per entry for all three feed formats;
 * - each entry's feed item, per format (the `cachedFeedItem` and `keepFeedItem` filters):
 *   rendered once and reused by every feed that holds the entry, the site's and its tags'
 *   (an entry with three tags is in four feeds of each format). The item markup does not
 *   depend on the feed it is in (`site/_includes/feeds/`). Keyed by the entry object, which
 *   the site data hands to every template as it is (it is frozen, so Eleventy does not copy it).
 *
 * @module
 */

/** What {@link BuildState.attach} uses of Eleventy's configuration. */
export interface BuildEvents {
  /** Eleventy's events (`eleventy.before`: a build starts). */
  on?(event: string, fn: () => void): void;
}

/** The per-build memos of one Eleventy configuration (see the module documentation). */
export class BuildState {
  /** An entry's HTML with absolute URLs, by the entry page's absolute URL. */
  readonly feedHtml = new Map<string, string>();
  #feedItems = new WeakMap<object, Map<string, string>>();

  /**
   * A state emptied as each build of `eleventyConfig` starts. One per application of the
   * plugin: Eleventy resets a configuration in place (watch mode) and runs the plugins again.
   */
  static attach(eleventyConfig: BuildEvents): BuildState {
    const state = new BuildState();
    eleventyConfig.on?.('eleventy.before', () => state.reset());
    return state;
  }

  /** The feed item of `entry` in `format` rendered earlier in this build, if any. */
  feedItem(entry: object, format: string): string | undefined {
    return this.#feedItems.get(entry)?.get(format);
  }

  /** Keeps the feed item of `entry` in `format` for the rest of this build. */
  keepFeedItem(entry: object, format: string, markup: string): void {
    let byFormat = this.#feedItems.get(entry);
    if (!byFormat) this.#feedItems.set(entry, (byFormat = new Map<string, string>()));
    byFormat.set(format, markup);
  }

  /** Forgets everything: a build starts. */
  reset(): void {
    this.feedHtml.clear();
    this.#feedItems = new WeakMap();
  }
}
