/**
 * The demo: the built-in emulator seeded with the demo's two products, a workspace each ("Lumen
 * App" `app` and "Lumen API" `api`, src/emulator/demo/seed.json), and every path under `.demo/`
 * (ignored by git), for `sync` and `dev` without a configured service, or with `--demo`. `sync`
 * mirrors both (`.demo/content/<key>/`) and builds one site of both; `dev` previews the first.
 * Its images ship in `src/emulator/demo/images/`: the service's entries show them from the
 * emulator's image host (`media-host.ts`, mirrored into the product's `media/`); a copy in the
 * first product's `images/` serves the local entries' `/images/<file>` and the absolute
 * `logo_url` and `og_image_url`.
 */
import { cp, mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config, WorkspaceEntry } from '../core/config.js';
import { tokenEnvFor } from '../core/workspace-entries.js';
import type { RunningEmulator } from '../emulator/server.js';
import type { Reporter } from './output/reporter.js';

/** Where the demo writes (ignored by git). */
const DEMO_DIR = '.demo';

/** The demo workspace's logo and Open Graph image, files of the emulator's `DEMO_IMAGES_DIR`. */
const DEMO_LOGO = 'lumen-logo.svg';
const DEMO_OG_IMAGE = 'lumen-og.png';

/**
 * The demo's site of two products, as a project's changelog.config.json names it: its
 * `siteTitle`, and the `title` of a product whose workspace's name on the service is not it
 * (the seed's first workspace is "Lumen"). Each product is a workspace of the demo seed, by its key.
 */
const DEMO_SITE_TITLE = 'Lumen';
const DEMO_TITLES: Readonly<Record<string, string>> = { app: 'Lumen App' };

/** A running demo: its emulator and the configuration pointing at it. */
export interface Demo {
  emulator: RunningEmulator;
  config: Config;
  close(): Promise<void>;
}

/** Options of {@link startDemo}. */
export interface StartDemoOptions {
  /** Why the demo runs, the first words printed (default: "No CHANGELOG_TOKEN is set"). */
  reason?: string;
  /** The demo's own folder under `.demo/` (`dev --demo`: `preview`, so it leaves `npm start`'s `.demo/_site` alone). Default `.demo/`. */
  subdir?: string;
  /**
   * The first product only, as a project of one workspace (`dev --demo` previews one workspace):
   * its mirror in `<demo>/content/`. Default both, as `workspaces`: `<demo>/content/<key>/`.
   */
  firstOnly?: boolean;
}

/**
 * Starts the demo from a clean mirror (the emulator's state is in memory, so an earlier mirror
 * would not match it) with the local entries and images in the first product's folder; its
 * `_site/` is left to the build. It has no hosted page: its site links nowhere off the site.
 * @param config the configuration; its `siteUrl` is where the demo's logo is published.
 * @param purpose what is done with it, e.g. "running the DEMO".
 * @returns the demo; its `config` names both products in `workspaces` (with `siteTitle`), or,
 *   with `firstOnly`, is the first product's configuration of one workspace.
 */
export async function startDemo(config: Config, reporter: Reporter, purpose: string, options: StartDemoOptions = {}): Promise<Demo> {
  // Loaded when the demo runs: a sync against the service loads no emulator.
  const [{ DEMO_ENTRIES_DIR, DEMO_IMAGES_DIR, loadSeed }, { startEmulator }] = await Promise.all([import('../emulator/seed.js'), import('../emulator/server.js')]);
  const demoRoot = join(config.root, DEMO_DIR, options.subdir ?? '');
  const contentDir = join(demoRoot, 'content');
  const stateDir = join(demoRoot, '.changelog');
  const [store] = await Promise.all([loadSeed('demo'), rm(contentDir, { recursive: true, force: true }), rm(stateDir, { recursive: true, force: true })]);
  const siteUrl = config.siteUrl.replace(/\/?$/, '/');
  for (const ws of store.workspaces) {
    ws.info.logo_url = new URL(`images/${DEMO_LOGO}`, siteUrl).href;
    ws.info.og_image_url = new URL(`images/${DEMO_OG_IMAGE}`, siteUrl).href;
  }
  const emulator = await startEmulator({ port: 0, store });
  const products = options.firstOnly ? [] : store.workspaces;
  const workspaces: WorkspaceEntry[] = products.map((w) => {
    const key = w.key!;
    return { key, title: DEMO_TITLES[key], baseUrl: emulator.url, tokenEnv: tokenEnvFor(key), token: w.tokens[0], contentDir: join(contentDir, key), stateDir: join(stateDir, key) };
  });
  // The local entries are the first product's new files, its images those the site publishes at /images/.
  const firstDir = workspaces[0]?.contentDir ?? contentDir;
  await mkdir(join(firstDir, 'entries'), { recursive: true });
  await Promise.all([cp(DEMO_ENTRIES_DIR, join(firstDir, 'entries'), { recursive: true }), cp(DEMO_IMAGES_DIR, join(firstDir, 'images'), { recursive: true })]);
  const names = workspaces.length > 0 ? `workspaces ${workspaces.map((w, i) => `"${w.title ?? store.workspaces[i]!.info.name}"`).join(' and ')}` : `workspace "${store.workspaces[0]!.info.name}"`;
  reporter.info(
    [
      `${options.reason ?? 'No CHANGELOG_TOKEN is set'}: ${purpose} against the built-in emulator of the changelog service`,
      `(${emulator.url}, ${names}). Everything is written under ${relative(config.root, demoRoot)}/, which git ignores.`,
      'Set CHANGELOG_BASE_URL and CHANGELOG_TOKEN to sync your own workspace.',
      '',
    ].join('\n'),
  );
  // The demo's site is the local preview at the site URL: push sends the demo entry's
  // screenshot on it, checked as a file to publish (it is built after the push). That URL is
  // the demo's choice, so a build in GitHub Actions (`sync --demo`) is not refused for it.
  const demo: Config = { ...config, baseUrl: emulator.url, token: store.workspaces[0]!.tokens[0], contentDir, stateDir, outputDir: join(demoRoot, '_site'), localImages: true, pushLease: false, hostedPageUrl: false, siteUrlConfigured: true };
  return {
    emulator,
    config: workspaces.length > 0 ? { ...demo, workspaces, siteTitle: DEMO_SITE_TITLE } : demo,
    close: () => emulator.close(),
  };
}

/** True when nothing is configured: the commands that can run the demo do. */
export function isDemo(config: Config): boolean {
  return !config.baseUrl && !config.token;
}
