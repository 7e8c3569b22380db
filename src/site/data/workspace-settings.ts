/**
 * The workspace settings as the site reads them (docs/service-interface.md#workspace): the flags
 * `is_public`, `allow_bots` and `show_backlink`, the name, logo, Open Graph image and theme.
 * `content/_data/workspace.json` is written by pull with booleans; a hand-written one may
 * use the service's 0/1 integers, so both are read.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';
import { resolveTheme, type ThemeChoice } from './themes.js';

/** The site-wide settings templates receive as `changelog.site`. */
export interface SiteSettings {
  /** The workspace name, or "Changelog". */
  name: string;
  /** The index page's heading: "<name> changelog", or the name alone when it says "changelog" already. */
  heading: string;
  /** `is_public`: false means the site is built only with `--allow-private`. Default true. */
  isPublic: boolean;
  /** `allow_bots`: false writes `Disallow: /` and `noindex` everywhere. Default true. */
  allowBots: boolean;
  /** `show_backlink`: a footer link to the hosted page. Default false. */
  showBacklink: boolean;
  /** The hosted page the backlink points to, when known. */
  backlinkUrl: string | null;
  /** `logo_url`, when it is an http(s) URL. */
  logoUrl: string | null;
  /** `og_image_url`, when it is an http(s) URL. */
  ogImageUrl: string | null;
  /** The theme the workspace's `theme` selects (see themes.ts). */
  theme: ThemeChoice;
  /** `<meta name="robots">` content. */
  robots: string;
}

/** The mirrored workspace settings (`content/_data/workspace.json`); `{}` when missing or unreadable. */
export async function readWorkspace(contentDir: string): Promise<Record<string, unknown>> {
  try {
    const json = JSON.parse(await readFile(join(contentDir, WORKSPACE_DATA_FILE), 'utf8')) as unknown;
    return json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A boolean-like flag of the service (`1`/`0`, `true`/`false`, `"1"`/`"0"`); `fallback` when missing or null. */
export function flag(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  // Any other value (an object, a list) is set.
  const s = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return !(s === '0' || s === 'false' || s === 'no' || s === 'off');
}

/** An http(s) URL, or null (a `javascript:` logo must not reach a page). */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const u = new URL(value.trim());
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * The workspace's hosted page (with the email sign-up): `hostedPageUrl`, else `<service root>/<slug>`
 * when the root is known. The interface does not document that address, hence configurable.
 * @param baseUrl the service root (`CHANGELOG_BASE_URL`), if configured.
 * @param configured `hostedPageUrl` of the configuration: a URL, or false for none.
 */
export function hostedPageUrl(workspace: Record<string, unknown>, baseUrl: string | undefined, configured?: string | false): string | null {
  if (configured === false) return null;
  if (configured !== undefined) return httpUrl(configured);
  const root = httpUrl(baseUrl);
  const slug = typeof workspace.slug === 'string' ? workspace.slug.trim() : '';
  if (!root || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(slug)) return null;
  return new URL(encodeURIComponent(slug), root.endsWith('/') ? root : `${root}/`).href;
}

/**
 * Reads the settings the site needs from `workspace.json`.
 * @param workspace the parsed `content/_data/workspace.json` (`{}` when missing).
 * @param options.themes the theme names the site's templates provide.
 * @param options.backlinkUrl the hosted page (see {@link hostedPageUrl}).
 */
export function siteSettings(workspace: Record<string, unknown>, options: { themes: string[]; backlinkUrl?: string | null }): SiteSettings {
  const allowBots = flag(workspace.allow_bots, true);
  const name = typeof workspace.name === 'string' && workspace.name.trim() ? workspace.name.trim() : 'Changelog';
  return {
    name,
    heading: /(^|\s)changelog(\s|$)/i.test(name) ? name : `${name} changelog`,
    isPublic: flag(workspace.is_public, true),
    allowBots,
    showBacklink: flag(workspace.show_backlink, false),
    backlinkUrl: httpUrl(options.backlinkUrl),
    logoUrl: httpUrl(workspace.logo_url),
    ogImageUrl: httpUrl(workspace.og_image_url),
    theme: resolveTheme(workspace.theme, options.themes),
    robots: allowBots ? 'index, follow' : 'noindex, nofollow',
  };
}
