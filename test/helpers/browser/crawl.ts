// A link checker for a built site served over HTTP: follows every link and asset of every
// page (href, src, srcset, form action, CSS url()), every site URL in the feeds, the sitemap,
// robots.txt and latest.json, Pagefind's own files and its result URLs, and reports each
// URL that does not answer 200. Absolute URLs on the site URL (canonical links, feed items)
// are fetched from the test server instead, path for path: one that lost the base path
// lands outside the served prefix and is reported.
import { statSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { expect } from 'vitest';
import { serveStatic } from './static-server.js';

type Node = DefaultTreeAdapterMap['parentNode'];

/** A URL that did not answer 200, and the first URL that referred to it. */
interface BrokenLink {
  url: string;
  /** The link as written in the page that referred to it. */
  href: string;
  status: number;
  from: string;
}

export interface CrawlResult {
  /** Every URL fetched (on the test server). */
  fetched: Set<string>;
  /** Links that do not work under the base path, but would on the site served at `/`. */
  broken: BrokenLink[];
  /**
   * Links that would not work at `/` either: an entry's own broken link, written in its
   * Markdown (a relative link to a page of another site, a malformed URL).
   */
  brokenEverywhere: BrokenLink[];
  /** Pagefind result URLs checked (from the index's fragments). */
  searchResults: number;
}

export interface CrawlOptions {
  /** The built site on disk (its HTML pages are all starting points). */
  outputDir: string;
  /** The test server's origin, e.g. `http://127.0.0.1:4321`. */
  server: string;
  /** The base path the site is served under, e.g. `/changelog/`. */
  prefix: string;
  /** The site URL it was built with: absolute URLs on it are fetched from the server. */
  siteUrl: string;
  /**
   * Start at the base path and the site's fixed files only, not at every page on disk: what
   * the crawl fetches is then what a reader (or a feed reader, a search engine) reaches.
   */
  fromRoot?: boolean;
}

const LINK_ATTRIBUTES: Record<string, string[]> = {
  a: ['href'],
  link: ['href'],
  script: ['src'],
  img: ['src', 'srcset'],
  source: ['src', 'srcset'],
  video: ['src', 'poster'],
  audio: ['src'],
  iframe: ['src'],
  form: ['action'],
};

/** The URLs an HTML document refers to (as written; `srcset` split into its URLs). */
function htmlLinks(html: string): string[] {
  const out: string[] = [];
  const walk = (node: Node) => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      const names = LINK_ATTRIBUTES[child.tagName] ?? [];
      for (const a of child.attrs) {
        if (!names.includes(a.name)) continue;
        if (a.name === 'srcset') out.push(...a.value.split(',').map((c) => c.trim().split(/\s+/)[0]!).filter(Boolean));
        else out.push(a.value.trim());
      }
      if (child.tagName === 'meta' && child.attrs.some((a) => a.name === 'property' && a.value === 'og:url')) {
        out.push(child.attrs.find((a) => a.name === 'content')?.value ?? '');
      }
      walk(child.tagName === 'template' ? (child as DefaultTreeAdapterMap['template']).content : child);
    }
  };
  walk(parse(html));
  return out;
}

/** Absolute http(s) URLs in text (feeds, sitemap, robots.txt, JSON), XML and JSON escapes undone. */
function textUrls(text: string): string[] {
  const plain = text.replace(/\\\//g, '/').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
  return [...plain.matchAll(/https?:\/\/[^\s"'<>\\)]+/g)].map((m) => m[0]);
}

/**
 * The bundles of a Pagefind index on disk, relative to the site: `pagefind/`, and any bundle
 * merged beside it (a warm build's `pagefind/recent/`, src/site/search/search-bundles.ts).
 */
async function pagefindBundles(outputDir: string): Promise<string[]> {
  const bundles = ['pagefind'];
  for (const d of await readdir(join(outputDir, 'pagefind'), { withFileTypes: true })) {
    if (d.isDirectory() && statSync(join(outputDir, 'pagefind', d.name, 'pagefind-entry.json'), { throwIfNoEntry: false })) bundles.push(`pagefind/${d.name}`);
  }
  return bundles;
}

/**
 * The result URLs of a Pagefind index on disk, of every bundle (site-relative: Pagefind's UI
 * puts the path it is served under in front of them): each fragment is gzipped
 * `pagefind_dcd` + JSON.
 */
export async function pagefindResultUrls(outputDir: string): Promise<string[]> {
  return (await pagefindResults(outputDir)).map((r) => r.url);
}

/** The results of a Pagefind index on disk ({@link pagefindResultUrls}) with their filters (`data-pagefind-filter`: name to values). */
export async function pagefindResults(outputDir: string): Promise<Array<{ url: string; filters: Record<string, string[]> }>> {
  const results: Array<{ url: string; filters: Record<string, string[]> }> = [];
  for (const bundle of await pagefindBundles(outputDir)) {
    const dir = join(outputDir, bundle, 'fragment');
    for (const name of await readdir(dir)) {
      const raw = gunzipSync(await readFile(join(dir, name))).toString('utf8');
      const fragment = JSON.parse(raw.slice(raw.indexOf('{'))) as { url: string; filters?: Record<string, string[]> };
      results.push({ url: fragment.url, filters: fragment.filters ?? {} });
    }
  }
  return results;
}

/**
 * Crawls the site from its pages on disk (unless {@link CrawlOptions.fromRoot}), its fixed
 * files and an unknown deep path (the 404 page, which must work from any depth).
 */
export async function crawlSite(options: CrawlOptions): Promise<CrawlResult> {
  const { server, prefix } = options;
  const site = new URL(options.siteUrl);
  const fetched = new Set<string>();
  const broken: BrokenLink[] = [];
  const queue: Array<{ url: string; href: string; from: string; expect?: number }> = [];
  const seen = new Set<string>();
  const add = (raw: string, from: string, expect?: number) => {
    if (!raw || raw.startsWith('#') || /^(?:mailto|tel|data|javascript):/i.test(raw)) return;
    let u: URL;
    try {
      u = new URL(raw, from);
    } catch {
      broken.push({ url: raw, href: raw, status: 0, from });
      return;
    }
    // The site's own absolute URLs: fetched from the test server, path for path.
    if (u.origin === site.origin) u = new URL(u.pathname + u.search, server);
    if (u.origin !== server) return; // another site
    u.hash = '';
    u.search = '';
    if (seen.has(u.href)) return;
    seen.add(u.href);
    queue.push({ url: u.href, href: raw, from, expect });
  };

  const root = `${server}${prefix}`;
  for (const d of options.fromRoot ? [] : await readdir(options.outputDir, { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith('.html') && d.name !== '404.html') {
      const rel = relative(options.outputDir, join(d.parentPath, d.name)).split(sep).join('/');
      add(rel === 'index.html' ? './' : rel.replace(/index\.html$/, ''), root);
    }
  }
  for (const f of ['./', 'robots.txt', 'sitemap.xml', 'latest.json', 'widget.js', 'feed.xml', 'rss.xml', 'feed.json', 'pagefind/pagefind.js', 'pagefind/pagefind-ui.js', 'pagefind/pagefind-ui.css']) {
    add(f, root);
  }
  // Each bundle's entry file, and through it its metadata and language files (the search
  // page names a merged bundle only inside its script).
  for (const bundle of await pagefindBundles(options.outputDir).catch(() => ['pagefind'])) add(`${bundle}/pagefind-entry.json`, root);
  add(`${root}no/such/deep/page/`, root, 404);
  const results = await pagefindResultUrls(options.outputDir).catch(() => [] as string[]);
  // Pagefind's UI puts the path its files are served under (the base path) in front of them.
  for (const r of results) add(r.replace(/^\//, ''), root);

  while (queue.length > 0) {
    const batch = queue.splice(0, 16);
    await Promise.all(
      batch.map(async ({ url, href, from, expect }) => {
        const res = await fetch(url);
        fetched.add(url);
        const body = await res.text();
        if (res.status !== (expect ?? 200)) {
          broken.push({ url, href, status: res.status, from });
          return;
        }
        const type = res.headers.get('content-type') ?? '';
        if (type.includes('html')) for (const l of htmlLinks(body)) add(l, url);
        else if (type.includes('css')) for (const m of body.matchAll(/url\(\s*['"]?([^'")]+)/g)) add(m[1]!, url);
        else if (/xml|json|text\/plain/.test(type)) for (const l of textUrls(body)) add(l, url);
        if (url.endsWith('/pagefind-entry.json')) {
          const entry = JSON.parse(body) as { languages: Record<string, { hash: string; wasm?: string }> };
          for (const lang of Object.values(entry.languages)) {
            add(`pagefind.${lang.hash}.pf_meta`, url);
            if (lang.wasm) add(`wasm.${lang.wasm}.pagefind`, url);
          }
        }
      }),
    );
  }
  const atRoot = broken.filter((b) => worksAtRoot(b, options));
  return { fetched, broken: atRoot, brokenEverywhere: broken.filter((b) => !atRoot.includes(b)), searchResults: results.length };
}

/**
 * Whether a broken link would work on the same site served at `/`: the link as written, less
 * the base path, resolved from the referring page's place at `/`, names a file of the site.
 */
function worksAtRoot(b: BrokenLink, options: CrawlOptions): boolean {
  const { prefix, server, outputDir } = options;
  const unprefix = (path: string) => (path.startsWith(prefix) ? `/${path.slice(prefix.length)}` : path);
  let target: URL;
  try {
    const from = new URL(b.from);
    const written = new URL(b.href, new URL(unprefix(from.pathname), server));
    const site = new URL(options.siteUrl);
    target = written.origin === site.origin || written.origin === server ? new URL(unprefix(written.pathname), server) : written;
  } catch {
    return false;
  }
  if (target.origin !== server) return false;
  let rel: string;
  try {
    rel = decodeURIComponent(target.pathname);
  } catch {
    return false;
  }
  const file = join(outputDir, rel);
  return [file, join(file, 'index.html')].some((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Crawls the site ({@link crawlSite}) and checks that no link, asset or search result is
 * broken, under the base path or at all; returns the crawl and the path of every URL fetched.
 */
export async function crawlUnbroken(options: CrawlOptions): Promise<CrawlResult & { paths: string[] }> {
  const crawl = await crawlSite(options);
  expect(crawl.broken).toEqual([]);
  expect(crawl.brokenEverywhere).toEqual([]);
  return { ...crawl, paths: [...crawl.fetched].map((u) => new URL(u).pathname) };
}

/**
 * Serves the built site in `outputDir` under `prefix` only (as GitHub Pages serves a project
 * site: `serveStatic`), crawls it with {@link crawlUnbroken}, and stops serving it.
 * @param siteUrl the site URL it was built with.
 */
export async function crawlServedUnbroken(outputDir: string, prefix: string, siteUrl: string): Promise<CrawlResult & { paths: string[] }> {
  const server = await serveStatic(outputDir, {}, { prefix });
  try {
    return await crawlUnbroken({ outputDir, server: server.url, prefix, siteUrl });
  } finally {
    await server.close();
  }
}
