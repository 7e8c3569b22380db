/**
 * Slugs: the one push derives from a title, and the test of a URL-safe slug; without zod or the
 * YAML reader, since the site's tag pages use them on Eleventy's thread.
 */
import slugifyLib from '@sindresorhus/slugify';

/** The slug push sends for a title when the file has none (lowercase ASCII, hyphens). */
export function slugify(title: string): string {
  // Already a slug (the usual case for the service's slugs): the library would return it
  // unchanged, but slowly enough that a pull of 10,000 entries would notice.
  if (ALREADY_SLUG.test(title)) return title;
  return slugifyLib(title, { decamelize: false }) || 'entry';
}

const ALREADY_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * True when a slug is safe in a URL path segment: ASCII letters, digits, `-` and `_`, starting
 * and ending alphanumeric, at most 255 characters (real changelogs use `user_id` and capitals).
 */
export function isSafeSlug(slug: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?$/.test(slug) && slug.length <= 255;
}
