/**
 * The site's template filters (eleventy-base-blog keeps its own in `_config/filters.js`):
 * dates for readers and feeds, a tag's colours, absolute URLs outside HTML pages, and an
 * entry's HTML made fit for feeds.
 */
import type { EleventyConfig } from '@11ty/eleventy';
import { baseUrlFunction, sanitisedBasePathTransform } from './base-path.js';
import { siteAbsoluteUrl } from '../../core/site-url.js';
import { tagStyle } from '../data/tags.js';
import type { SiteData } from '../data/site-model.js';

const READABLE_DATE = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
const readableDates = new Map<string, string>();

/** `YYYY-MM-DD` (or a Date) as `November 22, 2026` (also the `readableDate` filter). */
export function readableDate(d: Date | string): string {
  const key = d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10);
  let text = readableDates.get(key);
  if (text === undefined) {
    const date = new Date(`${key}T00:00:00Z`);
    text = Number.isNaN(date.getTime()) ? String(d) : READABLE_DATE.format(date);
    readableDates.set(key, text);
  }
  return text;
}

/** Registers the site's filters; after the HTML base plugin is added, whose filters `feedHtml` uses. */
export function addSiteFilters(eleventyConfig: Pick<EleventyConfig, 'addFilter' | 'getFilter'>): void {
  eleventyConfig.addFilter('isoDate', (d: Date | string) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10)));
  eleventyConfig.addFilter('readableDate', readableDate);
  eleventyConfig.addFilter('tagStyle', tagStyle);
  // The data whose shell a page shows: its product's (site-sections.ts), else the site's.
  eleventyConfig.addFilter('scopeOf', (changelog: SiteData, page: { section?: string } | undefined) => (page?.section && changelog.sections?.[page.section]) || changelog);
  // RFC 822 dates for RSS (the feed plugin's dateToRfc822 builds an Intl formatter per call).
  eleventyConfig.addFilter('rfc822Date', (d: Date) => d.toUTCString());
  // Absolute URLs outside HTML pages (feeds, sitemap, robots.txt): `'/feed.xml' |
  // siteAbsoluteUrl(changelog.siteUrl)`, keeping the site URL's base path.
  eleventyConfig.addFilter('siteAbsoluteUrl', siteAbsoluteUrl);
  // Entry HTML with absolute URLs for feeds (most need no change): relative URLs against the
  // entry's page, site-relative ones under the base path, by the base plugin's URL function
  // through base-path.ts's scan for sanitised HTML.
  eleventyConfig.addFilter('feedHtml', (entry: { html: string; url: string }, siteUrl: string) => {
    // Unless it has a URL that a feed reader would resolve against the wrong base.
    if (!/\s(?:href|src|poster)="(?![a-z][a-z0-9+.-]*:|#)/i.test(entry.html) && !/\ssrcset="/i.test(entry.html)) return entry.html;
    // The base plugin's URL function: the origin with Eleventy's pathPrefix (the site URL's path).
    const url = baseUrlFunction(eleventyConfig);
    const origin = new URL(siteUrl).origin;
    return sanitisedBasePathTransform((u) => url(u, origin, entry.url))(entry.html);
  });
}
