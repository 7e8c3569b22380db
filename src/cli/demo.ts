/**
 * The demo: the built-in emulator seeded with the demo workspace and every path under `.demo/`
 * (ignored by git), for `sync` and `dev` without a configured service, or with `--demo`. Its images
 * ship in `src/emulator/demo/images/`: the service's entries show them from the emulator's image
 * host (`media-host.ts`, mirrored into `.demo/content/media/`); a copy in `.demo/content/images/`
 * serves the local entries' `/images/<file>` and the absolute `logo_url` and `og_image_url`.
 */
import { cp, mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config } from '../core/config.js';
import type { RunningEmulator } from '../emulator/server.js';
import type { Reporter } from './output/reporter.js';

/** The demo workspace's token in the shipped seed. */
const DEMO_TOKEN = 'demo-token';

/** Where the demo writes (ignored by git). */
const DEMO_DIR = '.demo';

/** The demo workspace's logo and Open Graph image, files of the emulator's `DEMO_IMAGES_DIR`. */
const DEMO_LOGO = 'lumen-logo.svg';
const DEMO_OG_IMAGE = 'lumen-og.png';

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
}

/**
 * Starts the demo from a clean mirror (the emulator's state is in memory, so an earlier mirror
 * would not match it) with the local entries and images in place; its `_site/` is left to the
 * build. It has no hosted page: its site links nowhere off the site.
 * @param config the configuration; its `siteUrl` is where the demo's logo is published.
 * @param purpose what is done with it, e.g. "running the DEMO".
 */
export async function startDemo(config: Config, reporter: Reporter, purpose: string, options: StartDemoOptions = {}): Promise<Demo> {
  // Loaded when the demo runs: a sync against the service loads no emulator.
  const [{ DEMO_ENTRIES_DIR, DEMO_IMAGES_DIR, loadSeed }, { startEmulator }] = await Promise.all([import('../emulator/seed.js'), import('../emulator/server.js')]);
  const demoRoot = join(config.root, DEMO_DIR, options.subdir ?? '');
  const contentDir = join(demoRoot, 'content');
  const stateDir = join(demoRoot, '.changelog');
  await Promise.all([rm(contentDir, { recursive: true, force: true }), rm(stateDir, { recursive: true, force: true })]);
  await mkdir(join(contentDir, 'entries'), { recursive: true });
  await cp(DEMO_ENTRIES_DIR, join(contentDir, 'entries'), { recursive: true });
  await cp(DEMO_IMAGES_DIR, join(contentDir, 'images'), { recursive: true });
  const store = await loadSeed('demo');
  const siteUrl = config.siteUrl.replace(/\/?$/, '/');
  for (const ws of store.workspaces) {
    ws.info.logo_url = new URL(`images/${DEMO_LOGO}`, siteUrl).href;
    ws.info.og_image_url = new URL(`images/${DEMO_OG_IMAGE}`, siteUrl).href;
  }
  const emulator = await startEmulator({ port: 0, store });
  reporter.info(
    [
      `${options.reason ?? 'No CHANGELOG_TOKEN is set'}: ${purpose} against the built-in emulator of the changelog service`,
      `(${emulator.url}, workspace "Lumen"). Everything is written under ${relative(config.root, demoRoot)}/, which git ignores.`,
      'Set CHANGELOG_BASE_URL and CHANGELOG_TOKEN to sync your own workspace.',
      '',
    ].join('\n'),
  );
  return {
    emulator,
    // The demo's site is the local preview at the site URL: push sends the demo entry's
    // screenshot on it, checked as a file to publish (it is built after the push).
    config: { ...config, baseUrl: emulator.url, token: DEMO_TOKEN, contentDir, stateDir, outputDir: join(demoRoot, '_site'), localImages: true, pushLease: false, hostedPageUrl: false },
    close: () => emulator.close(),
  };
}

/** True when nothing is configured: the commands that can run the demo do. */
export function isDemo(config: Config): boolean {
  return !config.baseUrl && !config.token;
}
