// A repository of two products as a user has it (docs/sync.md "Several workspaces", docs/site.md
// "Several products"): changelog.config.json naming the workspaces `app` and `api`, one emulator
// serving both over HTTP (a token each, entries with tags and an image on its image host), one
// `sync` of the real CLI, and the built `_site` served under a base path by a static server
// whose address is the site URL the CLI built for.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { serveStatic, type StaticServer } from '../browser/static-server.js';
import { runCli, tempDir, type CliResult } from '../process/cli.js';
import { PNG_1X1, PNG_3X2 } from '../sync/media.js';

/** The base path the site is served under (a GitHub Pages project site's). */
export const PREFIX = '/repo/';

const TOKENS = { CHANGELOG_TOKEN_APP: 'app-token', CHANGELOG_TOKEN_API: 'api-token' };

/** One entry of a product, as the web editor holds it. */
interface ProductEntry {
  title: string;
  slug: string;
  /** `YYYY-MM-DD`. */
  date: string;
  tags: string[];
  image?: string;
}

/**
 * The products' entries, their dates interleaved (the combined home page orders them), one slug
 * (`launch`) in both products, a tag and an image each.
 */
export const PRODUCTS: Record<'app' | 'api', { title: string; tag: { name: string; slug: string }; entries: ProductEntry[] }> = {
  app: {
    title: 'Lumen App',
    tag: { name: 'Feature', slug: 'feature' },
    entries: [
      { title: 'App launch', slug: 'launch', date: '2026-03-01', tags: ['Feature'] },
      { title: 'Dark mode', slug: 'dark-mode', date: '2026-03-03', tags: ['Feature'], image: 'dark.png' },
      { title: 'Wombat import', slug: 'wombat-import', date: '2026-03-05', tags: [] },
    ],
  },
  api: {
    title: 'Lumen API',
    tag: { name: 'Breaking', slug: 'breaking' },
    entries: [
      { title: 'API launch', slug: 'launch', date: '2026-03-02', tags: [] },
      { title: 'Rate limits', slug: 'rate-limits', date: '2026-03-04', tags: ['Breaking'], image: 'limits.png' },
      { title: 'Wombat endpoint', slug: 'wombat-endpoint', date: '2026-03-06', tags: ['Breaking'] },
    ],
  },
};

/** A synced repository of two products, its site served under {@link PREFIX}. */
export interface TwoProducts {
  /** The repository. */
  dir: string;
  /** The built site on disk (`<dir>/_site`). */
  outputDir: string;
  /** The static server: its origin, e.g. `http://127.0.0.1:4321`. */
  server: StaticServer;
  /** The site URL the CLI built for: `<server origin>/repo/`. */
  siteUrl: string;
  /** The `sync` run. */
  sync: CliResult;
  close(): Promise<void>;
}

/** Adds a product's workspace to the store, with its tag and entries (images on the image host). */
function addProduct(store: EmulatorStore, key: 'app' | 'api', token: string): EmulatorWorkspace {
  const product = PRODUCTS[key];
  const ws = store.addWorkspace({ name: product.title, tokens: [token], entryTags: 'names' });
  ws.tags.push({ ...product.tag, bg_color: '#e0e7ff', text_color: '#3730a3' });
  for (const e of product.entries) {
    const image = e.image ? `<p><img src="{{media}}/${e.image}" alt="${e.title} screenshot"></p>` : '';
    store.insertEntry(ws, { title: e.title, slug: e.slug, publish_at: e.date, tags: e.tags, content: `<p>${e.title}: what changed in ${product.title}.</p>${image}` });
  }
  return ws;
}

/**
 * Makes the repository, serves its (not yet built) `_site` under {@link PREFIX}, and runs
 * `changelog-sync sync --no-lease` with `CHANGELOG_SITE_URL` the served address.
 * @param extra routes of the static server outside the site (a product's page with the widget),
 *   given the site URL.
 */
export async function syncTwoProducts(extra: (siteUrl: string) => Record<string, { type: string; body: string }> = () => ({})): Promise<TwoProducts> {
  const store = new EmulatorStore();
  store.media.set('dark.png', { type: 'image/png', body: PNG_1X1 });
  store.media.set('limits.png', { type: 'image/png', body: PNG_3X2 });
  addProduct(store, 'app', TOKENS.CHANGELOG_TOKEN_APP);
  addProduct(store, 'api', TOKENS.CHANGELOG_TOKEN_API);
  const emu: RunningEmulator = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 } });
  const { dir, cleanup } = await tempDir('changelog-sync-two-products-');
  const outputDir = join(dir, '_site');
  // The server first: its port is in the site URL the build writes into pages and feeds.
  const routes: Record<string, { type: string; body: string }> = {};
  const server = await serveStatic(outputDir, routes, { prefix: PREFIX });
  const siteUrl = `${server.url}${PREFIX}`;
  Object.assign(routes, extra(siteUrl));
  const close = async () => {
    await server.close();
    await emu.close();
    await cleanup();
  };
  try {
    const config = {
      baseUrl: emu.url,
      siteTitle: 'Lumen',
      workspaces: {
        app: { title: PRODUCTS.app.title, tokenEnv: 'CHANGELOG_TOKEN_APP' },
        api: { title: PRODUCTS.api.title, tokenEnv: 'CHANGELOG_TOKEN_API' },
      },
    };
    await writeFile(join(dir, 'changelog.config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const sync = await runCli(['sync', '--no-lease'], { cwd: dir, env: { ...TOKENS, CHANGELOG_SITE_URL: siteUrl }, timeoutMs: 120_000 });
    expect(sync.code, `${sync.stdout}\n${sync.stderr}`).toBe(0);
    return { dir, outputDir, server, siteUrl, sync, close };
  } catch (error) {
    await close();
    throw error;
  }
}
