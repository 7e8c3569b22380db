/**
 * Themes: the workspace's `theme` (docs/service-interface.md#workspace; values unpublished) selects
 * `_includes/css/themes/<name>.css`; three ship, a team adds its own in `site/`. An unknown name
 * falls back to {@link DEFAULT_THEME} with a warning. The configuration's `theme` wins, so a team's
 * choice survives pulls, which rewrite `workspace.json` ({@link checkThemeOverride}).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';

/** The themes shipped in `site/_includes/css/themes/`. `commit` is the service's own default. */
export const BUILT_IN_THEMES = ['commit', 'paper', 'mono'] as const;

/** The theme used when the workspace names none, or one the site does not have. */
const DEFAULT_THEME = 'commit';

/** Where theme stylesheets live, relative to the site directory. */
const THEMES_DIR = '_includes/css/themes';

/** Where the built site keeps its stylesheet, one file named by its content's hash (the bundle plugin's `css` bundle). */
export const BUNDLE_DIR = 'bundle';

/** The theme a build uses. */
export interface ThemeChoice {
  /** The theme used. */
  name: string;
  /** The value the workspace asked for (`''` when none). */
  requested: string;
  /** True when `requested` was set but is not a theme of this site. */
  fellBack: boolean;
  /** The stylesheet, relative to `_includes/` (for `{% include %}`). */
  include: string;
}

/** A name as themes are named (trimmed, lowercase), and whether it is one of `available`: `[a-z0-9-]` only, as a theme name becomes a file name. */
function themeName(name: unknown, available: readonly string[]): { want: string; known: boolean } {
  const want = typeof name === 'string' ? name.trim().toLowerCase() : '';
  return { want, known: /^[a-z0-9][a-z0-9-]*$/.test(want) && available.includes(want) };
}

/**
 * Resolves the workspace's `theme` against the available themes.
 * @param requested the workspace's `theme` value (any type: it comes from a JSON file).
 * @param available theme names the site provides (see {@link listThemes}).
 */
export function resolveTheme(requested: unknown, available: readonly string[]): ThemeChoice {
  const { want, known } = themeName(requested, available);
  const name = known ? want : DEFAULT_THEME;
  return { name, requested: want, fellBack: want !== '' && !known, include: `css/themes/${name}.css` };
}

/** The theme names a site directory provides (its `_includes/css/themes/*.css`). */
export async function listThemes(siteDir: string): Promise<string[]> {
  try {
    const names = await readdir(join(siteDir, THEMES_DIR));
    return names.filter((n) => n.endsWith('.css')).map((n) => n.slice(0, -4).toLowerCase());
  } catch {
    return [...BUILT_IN_THEMES];
  }
}

/**
 * The themes a build of `siteDir` has: the packaged site's and the team's own (site-stage.ts lays one over the other).
 * @param packagedSiteDir the templates shipped with changelog-sync.
 */
export async function siteThemes(siteDir: string, packagedSiteDir: string): Promise<string[]> {
  const own = siteDir === packagedSiteDir ? [] : await listThemes(siteDir);
  return [...new Set([...(await listThemes(packagedSiteDir)), ...own])];
}

/**
 * Checks the configured theme (`theme`, `CHANGELOG_THEME`): the team's own choice, unlike the
 * workspace's, so an unknown name stops the build rather than falling back.
 * @param configured the configured theme, or undefined (the workspace's is used).
 * @param available theme names the site provides (see {@link listThemes}).
 * @returns the theme to use instead of the workspace's, or undefined.
 * @throws {ChangelogSyncError} `E_CONFIG` when it is not one of `available`, listing them.
 */
export function checkThemeOverride(configured: string | undefined, available: readonly string[]): string | undefined {
  if (configured === undefined || configured === '') return undefined;
  const { want, known } = themeName(configured, available);
  if (known) return want;
  const names = [...available].sort();
  throw new ChangelogSyncError('E_CONFIG', `theme ${JSON.stringify(configured)} (changelog.config.json "theme" or CHANGELOG_THEME) is not a theme of this site: the themes are ${names.join(', ')}`, {
    field: 'theme',
    hint: `set theme to one of ${names.join(', ')}, or add site/${THEMES_DIR}/<name>.css for a theme of your own`,
  });
}

/**
 * The site's stylesheet: `_includes/css/base.css`, the theme's, then the team's `custom.css` if any; written as one file ({@link stylesheetFile}).
 * @param siteDir the site directory (Eleventy's input).
 */
export async function readStylesheet(siteDir: string, theme: ThemeChoice): Promise<string> {
  const parts: string[] = [];
  for (const rel of ['css/base.css', theme.include, 'css/custom.css']) {
    try {
      parts.push((await readFile(join(siteDir, '_includes', rel), 'utf8')).trim());
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return parts.join('\n\n');
}

/**
 * Where the stylesheet is written and what: `/bundle/<hash>.css`, the first ten characters of the
 * trimmed text's base64url SHA-256, as the bundle plugin's `BundleFileOutput` names it, so a build
 * writing it itself and one filling the `css` bundle link the same file. Null when empty.
 * @param css the stylesheet's text ({@link readStylesheet}).
 */
export function stylesheetFile(css: string): { url: string; content: string } | null {
  const content = css.trim();
  if (!content) return null;
  const hash = createHash('sha256').update(content).digest('base64url').slice(0, 10);
  return { url: `/${BUNDLE_DIR}/${hash}.css`, content };
}
