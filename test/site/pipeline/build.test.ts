// The built site: pages, tags, metadata, robots, sitemap, latest.json, themes, overrides,
// drafts, future entries and private workspaces. Real Eleventy and Pagefind, temp dirs.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGED_SITE_DIR } from '../../../src/core/config.js';
import { buildSite, type BuildOptions, type BuildResult } from '../../../src/site/pipeline/build.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { runCommand } from '../../helpers/process/command.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { dailyEntries, pngHeader, readSite, TAGS, WORKSPACE, writeContent, type EntrySpec } from '../../helpers/site/site-fixture.js';

const TODAY = '2026-03-15';
const SITE_URL = 'https://changelog.acme.test/';

async function build(dir: string, options: Partial<BuildOptions> = {}): Promise<BuildResult> {
  return buildSite({
    contentDir: join(dir, 'content'),
    siteDir: PACKAGED_SITE_DIR,
    outputDir: join(dir, '_site'),
    siteUrl: SITE_URL,
    root: dir,
    today: TODAY,
    ...options,
  });
}

async function htmlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (d.isFile() && d.name.endsWith('.html')) out.push(relative(dir, join(d.parentPath, d.name)));
  }
  return out.sort();
}

describe('a changelog of 45 entries, tags, a draft and a scheduled entry', () => {
  let dir: string;
  let out: string;
  let result: BuildResult;
  const entries: EntrySpec[] = [
    ...dailyEntries(45, '2026-03-14', (i) => (i % 3 === 0 ? ['New'] : i % 3 === 1 ? ['fix', 'Beta'] : [])),
    { title: 'Secret draft', date: '2026-03-01', status: 'draft' },
    { title: 'Coming soon', date: '2026-03-20', status: 'scheduled' },
    {
      title: 'Pictures and links',
      date: '2025-06-01',
      tags: ['New'],
      body: 'See the chart & more.\n\n![Chart](/images/chart.png)\n\n![Remote](https://cdn.example.com/x.png)\n\n[Read the guide](/guides/export/)\n',
    },
  ];
  const phases: Array<[number, number]> = [];
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    await writeContent(dir, { entries, images: { 'chart.png': pngHeader(640, 360) } });
    result = await build(dir, { onPhase: (done, total) => phases.push([done, total]) });
    out = result.outputDir;
  });

  it('lists every file of the output, the search index and stylesheet included', async () => {
    const onDisk: string[] = [];
    for (const d of await readdir(out, { withFileTypes: true, recursive: true })) {
      if (d.isFile()) onDisk.push(relative(out, join(d.parentPath, d.name)));
    }
    expect([...result.files].sort()).toEqual(onDisk.sort());
    expect(result.files).toEqual(expect.arrayContaining(['index.html', 'feed.xml', 'pagefind/pagefind-entry.json', 'widget.js']));
    expect(result.files.filter((f) => f.startsWith('bundle/'))).toHaveLength(1);
    expect(result.pages).toBe(onDisk.filter((f) => f.endsWith('.html')).length);
  });

  it('reports its phases (pages, then the search index) for the progress bar', () => {
    expect(phases).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('writes the index in pages of 20, newest first, linked newer/older', async () => {
    const page1 = await readSite(out, 'index.html');
    const titles = [...page1.matchAll(/<h2 class="entry-title" id="[^"]+"><a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => m[2]);
    expect(titles).toHaveLength(20);
    expect(titles.slice(0, 3)).toEqual(['Update 45', 'Update 44', 'Update 43']);
    expect(page1).toContain('<a class="button-link" rel="next" href="/page/2/">');
    const page3 = await readSite(out, 'page/3/index.html');
    expect(page3.match(/class="entry-title"/g)).toHaveLength(6); // 46 visible entries: 20 + 20 + 6
    expect(page3).toContain('rel="prev" href="/page/2/"');
    expect(page3).not.toContain('rel="next"');
    expect(existsSync(join(out, 'page/4/index.html'))).toBe(false);
    expect(result.pages).toBe((await htmlFiles(out)).length);
  });

  it('writes one page per entry with previous/next, dates and Open Graph/Twitter meta', async () => {
    const page = await readSite(out, 'entries/update-44/index.html');
    for (const markup of [
      '<h1 data-pagefind-ignore data-pagefind-meta="title">Update 44</h1>',
      '<time datetime="2026-03-13" data-pagefind-meta="date">March 13, 2026</time>',
      'rel="prev" href="/entries/update-43/"',
      'rel="next" href="/entries/update-45/"',
      '<meta property="og:title" content="Update 44">',
      '<meta property="og:description" content="The first paragraph of Update 44.">',
      '<meta name="description" content="The first paragraph of Update 44.">',
      '<meta property="og:image" content="https://acme.example.com/og.png">',
      '<meta property="og:url" content="https://changelog.acme.test/entries/update-44/">',
      '<meta name="twitter:card" content="summary_large_image">',
      '<link rel="canonical" href="https://changelog.acme.test/entries/update-44/">',
      '<img class="brand-logo" src="https://acme.example.com/logo.png" alt=""',
      '<meta name="robots" content="index, follow">',
    ]) {
      expect(page).toContain(markup);
    }
  });

  it('links the three feeds from every page, and needs no script except on the search page (and the copy buttons of the Subscribe page)', async () => {
    for (const rel of await htmlFiles(out)) {
      const html = await readSite(out, rel);
      expect(html, rel).toContain('<link rel="alternate" type="application/atom+xml" href="/feed.xml"');
      expect(html, rel).toContain('<link rel="alternate" type="application/rss+xml" href="/rss.xml"');
      expect(html, rel).toContain('<link rel="alternate" type="application/feed+json" href="/feed.json"');
      if (rel === 'search/index.html') expect(html).toContain('<script src="/pagefind/pagefind-ui.js"></script>');
      // The copy buttons are hidden until the script finds a clipboard: the addresses are text without it.
      else if (rel === 'subscribe/index.html') expect(html.match(/<script/g)).toHaveLength(1);
      else expect(html, rel).not.toContain('<script');
    }
  });

  it('writes tag pages with the colours of tags.json, paginated, and a tag index', async () => {
    const tagNew = await readSite(out, 'tags/new/index.html');
    expect(tagNew).toContain('style="--tag-bg: #dcfce7; --tag-fg: #166534">New</span>');
    expect(tagNew.match(/class="entry-row"/g)).toHaveLength(16); // 15 daily + "Pictures and links"
    const fix = await readSite(out, 'tags/fix/index.html');
    expect(fix.match(/class="entry-row"/g)).toHaveLength(15);
    expect(fix).toContain('href="/entries/update-43/"');
    expect(fix).not.toContain('href="/entries/update-45/"');
    const beta = await readSite(out, 'tags/beta/index.html'); // a local tag: no colours
    expect(beta).toMatch(/<span class="tag tag-large">Beta<\/span>/);
    const index = await readSite(out, 'tags/index.html');
    expect(index).toContain('<a class="tag tag-large" href="/tags/new/" style="--tag-bg: #dcfce7; --tag-fg: #166534">New</a>');
    expect(index).toContain('16 updates');
  });

  it('never writes drafts, and leaves a scheduled entry out until its date', async () => {
    expect(existsSync(join(out, 'entries/secret-draft'))).toBe(false);
    expect(existsSync(join(out, 'entries/coming-soon'))).toBe(false);
    for (const rel of ['index.html', 'feed.xml', 'rss.xml', 'feed.json', 'sitemap.xml', 'latest.json']) {
      const text = await readSite(out, rel);
      expect(text, rel).not.toContain('Secret draft');
      expect(text, rel).not.toContain('Coming soon');
    }
    // A later build (the scheduled workflow on 2026-03-20) includes it; the draft stays out.
    const later = await build(dir, { today: '2026-03-20', outputDir: join(dir, '_later'), search: false });
    const index = await readSite(later.outputDir, 'index.html');
    expect(index).toContain('<a href="/entries/coming-soon/">Coming soon</a>');
    expect(index).not.toContain('Secret draft');
    expect((JSON.parse(await readSite(later.outputDir, 'latest.json')) as { title: string }).title).toBe('Coming soon');
  });

  it('lazy-loads images and gives local ones their dimensions', async () => {
    const page = await readSite(out, 'entries/pictures-and-links/index.html');
    expect(page).toMatch(/<img loading="lazy" decoding="async" src="\/images\/chart\.png" alt="Chart" width="640" height="360" \/>/);
    expect(page).toMatch(/<img loading="lazy" decoding="async" src="https:\/\/cdn\.example\.com\/x\.png" alt="Remote" \/>/);
    expect(existsSync(join(out, 'images/chart.png'))).toBe(true);
  });

  it('writes sitemap.xml, robots.txt, a 404 page, latest.json and widget.js', async () => {
    const sitemap = await readSite(out, 'sitemap.xml');
    const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toContain('https://changelog.acme.test/');
    expect(locs).toContain('https://changelog.acme.test/page/3/');
    expect(locs).toContain('https://changelog.acme.test/entries/update-1/');
    expect(locs).toContain('https://changelog.acme.test/tags/new/');
    expect(locs.filter((l) => l!.includes('/entries/'))).toHaveLength(46);
    expect(locs.some((l) => l!.includes('404') || l!.includes('/search/'))).toBe(false);
    expect(sitemap).toContain('<loc>https://changelog.acme.test/entries/update-45/</loc><lastmod>2026-03-14</lastmod>');
    expect(await readSite(out, 'robots.txt')).toBe('User-agent: *\nAllow: /\n\nSitemap: https://changelog.acme.test/sitemap.xml\n');
    expect(await readSite(out, '404.html')).toContain('<h1>This page is not here</h1>');
    const latest = JSON.parse(await readSite(out, 'latest.json')) as unknown;
    expect(latest).toMatchObject({ uuid: null, date: '2026-03-14T00:00:00.000000Z', title: 'Update 45', slug: 'update-45', url: 'https://changelog.acme.test/entries/update-45/' });
    expect(await readSite(out, 'widget.js')).toContain("new URL('latest.json', base)");
  });

  it('bundles the theme into one stylesheet and indexes every entry for search', async () => {
    const css = result.files.filter((f) => /^bundle\/[\w-]+\.css$/.test(f));
    expect(css).toHaveLength(1);
    expect(await readSite(out, css[0]!)).toContain('.theme-commit .entry-main');
    expect(await readSite(out, 'index.html')).toContain(`<link rel="stylesheet" href="/${css[0]}">`);
    expect(result.indexed).toBe(46);
    expect(existsSync(join(out, 'pagefind/pagefind-ui.js'))).toBe(true);
    expect(existsSync(join(out, 'pagefind/pagefind-entry.json'))).toBe(true);
  });
});

describe('workspace settings', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('allow_bots 0: robots.txt disallows everything and every page says noindex', async () => {
    await writeContent(join(dir, 'bots'), { workspace: { ...WORKSPACE, allow_bots: 0 }, entries: dailyEntries(2, '2026-03-01') });
    const r = await build(join(dir, 'bots'), { search: false });
    expect(await readSite(r.outputDir, 'robots.txt')).toContain('User-agent: *\nDisallow: /\n');
    expect(await readSite(r.outputDir, 'robots.txt')).not.toContain('Sitemap:');
    for (const rel of await htmlFiles(r.outputDir)) {
      expect(await readSite(r.outputDir, rel), rel).toMatch(/<meta name="robots" content="noindex/);
    }
  });

  it('an unknown theme falls back to commit with a warning; a known one is used', async () => {
    await writeContent(join(dir, 'aurora'), { workspace: { ...WORKSPACE, theme: 'aurora' }, entries: dailyEntries(1, '2026-03-01') });
    const r = await build(join(dir, 'aurora'), { search: false });
    expect(r.warnings).toEqual([expect.stringContaining(`the workspace's theme "aurora" is not a theme of this site: using "commit"`)]);
    expect(await readSite(r.outputDir, 'index.html')).toContain('<body class="theme-commit">');

    await writeContent(join(dir, 'paper'), { workspace: { ...WORKSPACE, theme: 'paper' }, entries: dailyEntries(1, '2026-03-01') });
    const p = await build(join(dir, 'paper'), { search: false });
    expect(p.warnings).toEqual([]);
    expect(await readSite(p.outputDir, 'index.html')).toContain('<body class="theme-paper">');
    const css = p.files.find((f) => f.startsWith('bundle/'))!;
    expect(await readSite(p.outputDir, css)).toContain('Theme "paper"');
  });

  it('show_backlink links the hosted page in the footer; without it there is no link', async () => {
    await writeContent(join(dir, 'back'), { workspace: { ...WORKSPACE, show_backlink: 1 }, entries: dailyEntries(1, '2026-03-01') });
    const on = await build(join(dir, 'back'), { search: false, baseUrl: 'https://changelog.example.com' });
    expect(await readSite(on.outputDir, 'index.html')).toContain('<a href="https://changelog.example.com/acme" rel="noopener">');
    await writeContent(join(dir, 'noback'), { workspace: { ...WORKSPACE, show_backlink: 0 }, entries: dailyEntries(1, '2026-03-01') });
    const off = await build(join(dir, 'noback'), { search: false, baseUrl: 'https://changelog.example.com' });
    expect(await readSite(off.outputDir, 'index.html')).not.toContain('https://changelog.example.com/acme');
  });

  it('a team overrides single files in its site/ and keeps the packaged rest', async () => {
    const root = join(dir, 'team');
    await writeContent(root, { workspace: { ...WORKSPACE, theme: 'aurora' }, tags: TAGS, entries: dailyEntries(2, '2026-03-01') });
    await mkdir(join(root, 'site/_includes/css/themes'), { recursive: true });
    await writeFile(join(root, 'site/_includes/footer.njk'), '<footer class="team-footer">Made by {{ site.name }}</footer>\n');
    await writeFile(join(root, 'site/_includes/css/themes/aurora.css'), '.aurora-marker { color: #123456; }\n');
    await writeFile(join(root, 'site/_includes/css/custom.css'), '.custom-marker { color: #654321; }\n');
    const r = await build(root, { siteDir: join(root, 'site'), search: false });
    expect(r.warnings).toEqual([]);
    const index = await readSite(r.outputDir, 'index.html');
    expect(index).toContain('<footer class="team-footer">Made by Acme</footer>');
    expect(index).toContain('<body class="theme-aurora">');
    expect(index).toContain('class="entry-title"'); // the packaged index page
    const css = await readSite(r.outputDir, r.files.find((f) => f.startsWith('bundle/'))!);
    expect(css).toContain('.aurora-marker');
    expect(css).toContain('.custom-marker');
    expect(css).toContain('.skip-link'); // the packaged base.css
  });

  it("a template error names the team's file, with E_BUILD", async () => {
    const root = join(dir, 'broken');
    await writeContent(root, { entries: dailyEntries(1, '2026-03-01') });
    await mkdir(join(root, 'site/_includes'), { recursive: true });
    await writeFile(join(root, 'site/_includes/footer.njk'), '{% if %}\n');
    await expect(build(root, { siteDir: join(root, 'site'), search: false })).rejects.toMatchObject({
      code: 'E_BUILD',
      message: expect.stringContaining(join(root, 'site/_includes/footer.njk')) as unknown,
    });
  });
});

describe('a build over an earlier one', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  const stylesheetOf = async (out: string) => /href="(\/bundle\/[^"]+\.css)"/.exec(await readSite(out, 'index.html'))?.[1];

  it("leaves exactly a fresh build's files: a removed entry's page, its tag's and a removed image go, the rest is written over", async () => {
    const root = join(dir, 'rebuild');
    const content = await writeContent(root, {
      entries: [
        { title: 'Kept', date: '2026-03-02', tags: ['New'] },
        { title: 'Removed', date: '2026-03-01', tags: ['Fix'], body: '![Old](/images/old.png)\n' },
      ],
      images: { 'old.png': pngHeader(2, 2), 'kept.png': pngHeader(3, 3) },
    });
    const first = await build(root, { search: false });
    expect(first.files).toEqual(expect.arrayContaining(['entries/removed/index.html', 'tags/fix/index.html', 'images/old.png', 'images/kept.png']));
    await writeFile(join(first.outputDir, 'stray.txt'), 'not written by a build\n');
    await rm(join(content, 'entries/2026-03-01-removed.md'));
    await rm(join(content, 'images/old.png'));

    const second = await build(root, { search: false });
    const fresh = await build(root, { search: false, outputDir: join(root, '_fresh') });
    expect(second.files.sort()).toEqual(fresh.files.sort());
    expect(existsSync(join(second.outputDir, 'entries/removed'))).toBe(false);
    expect(existsSync(join(second.outputDir, 'tags/fix'))).toBe(false);
    expect(existsSync(join(second.outputDir, 'images/old.png'))).toBe(false);
    expect(existsSync(join(second.outputDir, 'stray.txt'))).toBe(false);
    expect(await readSite(second.outputDir, 'entries/kept/index.html')).toContain('data-pagefind-meta="title">Kept</h1>');
    // Built twice in this process, the bundle plugin wrote the stylesheet only once: it stays.
    const css = await stylesheetOf(second.outputDir);
    expect(css).toBeDefined();
    expect(existsSync(join(second.outputDir, css!))).toBe(true);
  });

  it('a changed stylesheet replaces the old one', async () => {
    const root = join(dir, 'restyle');
    await writeContent(root, { entries: dailyEntries(1, '2026-03-01') });
    const first = await build(root, { search: false });
    const before = await stylesheetOf(first.outputDir);
    await writeContent(root, { workspace: { ...WORKSPACE, theme: 'paper' }, entries: dailyEntries(1, '2026-03-01') });
    const second = await build(root, { search: false });
    const after = await stylesheetOf(second.outputDir);
    expect(after).not.toBe(before);
    expect(second.files.filter((f) => f.startsWith('bundle/'))).toEqual([after!.slice(1)]);
  });

  it("with a project .eleventy.js (its plugins may write files Eleventy does not report), empties the output first", async () => {
    const root = join(dir, 'configured');
    const content = await writeContent(root, { entries: dailyEntries(2, '2026-03-01') });
    const plugin = pathToFileURL(join(PACKAGED_SITE_DIR, '../dist/site/pipeline/plugin.js')).href;
    await writeFile(
      join(root, '.eleventy.js'),
      [
        "import { existsSync, writeFileSync } from 'node:fs';",
        `import changelogSite from ${JSON.stringify(plugin)};`,
        'export default function (c) {',
        '  c.addPlugin(changelogSite);',
        "  c.addFilter('shout', (s) => String(s).toUpperCase());",
        // What a plugin that writes files of its own would find in the output as the build starts.
        `  c.on('eleventy.before', () => writeFileSync(${JSON.stringify(join(root, 'saw-stray'))}, String(existsSync(${JSON.stringify(join(root, '_site/stray.txt'))}))));`,
        '}',
        "export const config = { dir: { includes: '_includes' }, templateFormats: ['njk', 'html', '11ty.js'], htmlTemplateEngine: 'njk' };",
      ].join('\n'),
    );
    await mkdir(join(root, 'site'), { recursive: true });
    await writeFile(join(root, 'site/shout.njk'), '---\npermalink: /shout.txt\n---\n{{ "project config" | shout }}\n');
    const first = await build(root, { siteDir: join(root, 'site'), search: false });
    expect(await readSite(first.outputDir, 'shout.txt')).toContain('PROJECT CONFIG');
    await rm(join(content, 'entries/2026-02-28-update-1.md'));
    await writeFile(join(first.outputDir, 'stray.txt'), 'not written by a build\n');
    const second = await build(root, { siteDir: join(root, 'site'), search: false });
    expect(await readFile(join(root, 'saw-stray'), 'utf8')).toBe('false');
    expect(existsSync(join(second.outputDir, 'entries/update-1'))).toBe(false);
    expect(await readSite(second.outputDir, 'entries/update-2/index.html')).toContain('data-pagefind-meta="title">Update 2</h1>');
  });
});

describe('changelog-sync build and a private workspace', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    await writeContent(dir, { workspace: { ...WORKSPACE, is_public: 0 }, entries: dailyEntries(2, '2026-03-01') });
  });

  it('is_public 0: refuses with the fix, exit 1, writes nothing', async () => {
    const r = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG:');
    expect(r.stderr).toContain('the workspace "Acme" is private (is_public is 0): its site is not built');
    // Named as the project runs it, as every other message names a command.
    expect(r.stderr).toContain('publish the site anyway with `npx changelog-sync build --allow-private`');
    expect(existsSync(join(dir, '_site'))).toBe(false);
  });

  it('--allow-private builds it', async () => {
    const r = await runCommand((config, reporter) => buildCommand(config, reporter, { allowPrivate: true }), { cwd: dir, json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ command: 'build', indexed: 2, warnings: [] });
    expect(await readSite(join(dir, '_site'), 'index.html')).toContain('Update 2');
  });
});
