// Scenario "build": the site build (Eleventy, and Pagefind beside it) of 1,000 and 10,000
// entries made from the real corpus (repeated, with distinct slugs), next to what a user would
// assemble instead: plain Eleventy 3 over the same Markdown files with a one-line layout, and
// the same followed by the Pagefind CLI over its output. Ours is measured cold at `/` and
// under a base path (`/repo/`, as GitHub Pages serves a project site: the figure users get),
// and warm: with the cache of the cold build under the base path, after one new entry. All
// as child processes, alternated within each round (ours, plain, ours, plain...), each into
// an output folder of its own; the fastest of BENCH_BUILD_ROUNDS (2) each, and the ratio of
// each round's pair. Wall time, CPU time and peak RSS of the whole process tree (node, its
// threads and the Pagefind binary) read from /proc (Linux). BENCH_BUILD_SIZES=1000 runs one size.
// Responsive images: the same content with BENCH_BUILD_IMAGES (500)
// screenshots in content/images/, one in each of as many entries, built cold (empty cache:
// every image encoded) and warm (after the new entry: none encoded) under the base path,
// beside the same builds without them, in the same rounds; 0 leaves them out.
// BENCH_NODE: the Node binary that runs every build, ours and plain (default the bench's own),
// to measure on the Node of the scheduled workflow (sync.yml sets up Node 22); the
// figures name its version.
import { execFileSync, spawn } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as stringifyYaml } from 'yaml';
import { runnerImport } from 'vite';
import { settleDisk } from '../disk.mjs';

export const name = 'build';
export const description = 'changelog-sync build (cold at / and under /repo/, warm after one new entry; the same with 500 screenshots, cold and warm) of 1,000 and 10,000 corpus entries vs plain Eleventy with a one-line layout, alone and followed by the Pagefind CLI';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const ELEVENTY = join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs');
const PAGEFIND = join(ROOT, 'node_modules/pagefind/lib/runner/bin.cjs');
const SIZES = (process.env.BENCH_BUILD_SIZES ?? '1000,10000').split(',').map(Number);
/** The Node binary of every build (BENCH_NODE, else the bench's own). */
const NODE = process.env.BENCH_NODE || process.execPath;
const ROUNDS = Number(process.env.BENCH_BUILD_ROUNDS ?? 2);
const IMAGES = Number(process.env.BENCH_BUILD_IMAGES ?? 500);

/** The corpus, through Vite's module runner (the loader is TypeScript, shared with the tests). */
export async function corpus() {
  const { module } = await runnerImport(join(ROOT, 'test/corpus/corpus.ts'), { root: ROOT, configFile: false, logLevel: 'silent' });
  return module.loadCorpus();
}

/** Writes `n` entry files (the corpus repeated, slugs made distinct) and the workspace data. */
export async function writeContent(dir, entries, n) {
  const entriesDir = join(dir, 'content/entries');
  await mkdir(entriesDir, { recursive: true });
  await mkdir(join(dir, 'content/_data'), { recursive: true });
  const tagNames = new Set();
  const files = [];
  for (let i = 0; i < n; i++) {
    const e = entries[i % entries.length];
    const round = Math.floor(i / entries.length);
    const slug = `${e.slug}-${round}-${i}`.toLowerCase().replace(/[^a-z0-9-]+/g, '-').slice(0, 70);
    const tags = Array.isArray(e.frontmatter.applies_to) ? e.frontmatter.applies_to.map(String) : [];
    tags.forEach((t) => tagNames.add(t));
    const fm = stringifyYaml({ title: e.title, slug, publish_at: e.date, status: 'published', tags }, { lineWidth: 0 });
    const file = `${e.date}-${slug}.md`;
    files.push(file);
    await writeFile(join(entriesDir, file), `---\n${fm}---\n\n${e.body}\n`);
  }
  await writeFile(
    join(dir, 'content/_data/workspace.json'),
    JSON.stringify({ identifier: '00000000-0000-4000-8000-000000000001', name: 'Bench', slug: 'bench', theme: 'commit', is_public: true, allow_bots: true, show_backlink: false, logo_url: null, og_image_url: null }),
  );
  const palette = [['#dcfce7', '#166534'], ['#dbeafe', '#1e40af'], ['#fef3c7', '#92400e'], ['#ede9fe', '#5b21b6']];
  await writeFile(
    join(dir, 'content/_data/tags.json'),
    JSON.stringify([...tagNames].map((t, i) => ({ name: t, slug: t.toLowerCase().replace(/[^a-z0-9]+/g, '-'), bg_color: palette[i % 4][0], text_color: palette[i % 4][1] }))),
  );
  return files;
}

/**
 * The same Markdown files as a plain Eleventy project: one-line layout (with `<head>` and
 * `<body>`: Pagefind indexes no page without them), Markdown not preprocessed.
 */
async function writePlain(dir, files) {
  const input = join(dir, 'plain');
  await mkdir(join(input, 'entries'), { recursive: true });
  await mkdir(join(input, '_includes'), { recursive: true });
  for (const f of files) await writeFile(join(input, 'entries', f), await readFile(join(dir, 'content/entries', f)));
  await writeFile(join(input, 'entries/entries.json'), JSON.stringify({ layout: 'plain.njk' }));
  await writeFile(join(input, '_includes/plain.njk'), '<!doctype html><html lang="en"><head><title>{{ title }}</title></head><body><main>{{ content | safe }}</main></body></html>\n');
  await writeFile(join(dir, 'plain.config.mjs'), "export const config = { markdownTemplateEngine: false };\n");
  return input;
}

/** The tests' PNG encoder (`rgbPng` in test/helpers/site/site-fixture.ts, TypeScript: loaded as the corpus is). */
async function pngEncoder() {
  const { module } = await runnerImport(join(ROOT, 'test/helpers/site/site-fixture.ts'), { root: ROOT, configFile: false, logLevel: 'silent' });
  return module.rgbPng;
}

/**
 * A screenshot-like PNG (8-bit RGB, `width` x `height`): a window of panels and rows of
 * "text" in colours from `seed`, over a faint gradient, so that it neither compresses to
 * nothing nor is noise. Distinct seeds give distinct bytes.
 */
function screenshot(rgbPng, width, height, seed) {
  const accent = [(seed * 53) % 256, (seed * 97) % 256, (seed * 151) % 256];
  return rgbPng(
    width,
    height,
    (x, y) => {
      const sidebar = x < width / 5;
      const text = !sidebar && y % 24 < 10 && (x * 7 + y * 3 + seed) % 97 < 70 && x % 180 < 150;
      return text ? [40, 44, 52] : sidebar ? accent : [246 - (y % 16), 247 - (x % 8), 250];
    },
    1,
  );
}

/**
 * A copy of the project in `dir` (its content) with `count` screenshots (1600 x 1000) in
 * content/images/, each shown by one entry, spread over the entries.
 * @returns the copy's folder.
 */
async function writeImageProject(dir, files, count) {
  const project = join(dir, 'with-images');
  await cp(join(dir, 'content'), join(project, 'content'), { recursive: true });
  await mkdir(join(project, 'content/images'), { recursive: true });
  const step = files.length / count;
  const rgbPng = await pngEncoder();
  for (let i = 0; i < count; i++) {
    await writeFile(join(project, 'content/images', `shot-${i}.png`), screenshot(rgbPng, 1600, 1000, i + 1));
    await appendFile(join(project, 'content/entries', files[Math.floor(i * step)]), `\n![Screenshot ${i}](/images/shot-${i}.png)\n`);
  }
  return project;
}

/** The pids of `pid`'s process tree (a scan of /proc). */
async function treePids(pid) {
  const children = new Map();
  for (const p of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(p)) continue;
    const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(p));
  }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/** VmRSS and VmHWM (its peak) of a process, bytes; null once it has ended. */
async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  if (!status) return null;
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * CPU seconds (user and system) of this process's children that have ended and been waited
 * for, with theirs: the `cutime` and `cstime` of /proc/self/stat, in clock ticks (100 a
 * second on Linux).
 */
async function childrenCpuSeconds() {
  const stat = await readFile('/proc/self/stat', 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/**
 * Runs a command; its wall time (s), its CPU time (s, the whole process tree: node, its
 * threads and the Pagefind binary, which it waits for; steadier than wall time on a shared
 * machine) and the peak RSS of its process tree (MiB): the larger
 * of the highest sum of the tree's RSS (sampled every 100 ms; the tree is rescanned every
 * 500 ms) and the highest peak (VmHWM) of any one of its processes. Sampling reads only the
 * tree's own /proc files, so it costs the measured build little.
 */
export async function measure(args, options, command = NODE) {
  const cpuBefore = await childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let pids = [child.pid];
    let peak = 0;
    let busy = false;
    let ticks = 0;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      if (ticks++ % 5 === 0) pids = await treePids(child.pid);
      const mem = (await Promise.all(pids.map(memoryOf))).filter(Boolean);
      peak = Math.max(peak, mem.reduce((sum, m) => sum + m.rss, 0), ...mem.map((m) => m.hwm));
      busy = false;
    }, 100);
    child.on('error', reject);
    child.on('close', async (code) => {
      clearInterval(timer);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const cpuSeconds = Math.round(((await childrenCpuSeconds()) - cpuBefore) * 10) / 10;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${(stderr + stdout).slice(-2000)}`));
      else resolve({ seconds: Math.round(seconds * 100) / 100, cpuSeconds, peakRssMiB: Math.round(peak / 2 ** 20), stdout });
    });
  });
}

/** The fastest of some runs, with the highest peak RSS of them. */
function fastest(runs) {
  const best = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return { seconds: best.seconds, cpuSeconds: best.cpuSeconds, peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)), runs: runs.map((r) => r.seconds), cpuRuns: runs.map((r) => r.cpuSeconds) };
}

const ratio = (a, b) => Math.round((a / b) * 100) / 100;

/** Our build's own timings (from `--json`), seconds. */
function timingsOf(run) {
  const result = JSON.parse(run.stdout);
  return {
    dataSeconds: Math.round(result.timings.dataMs / 100) / 10,
    eleventySeconds: Math.round(result.timings.eleventyMs / 100) / 10,
    // When the render stage was called: before the data's end when it started on the data before its bodies.
    renderStartSeconds: Math.round(result.timings.renderMs / 100) / 10,
    pagefindSeconds: Math.round(result.timings.searchMs / 100) / 10,
    pages: result.pages,
    indexed: result.indexed,
    cache: result.cache ? { hits: result.cache.hits, rendered: result.cache.rendered, pages: result.cache.pages } : undefined,
    // How the search index was made with a cache: entries indexed now, and kept from the archive.
    search: result.search,
    // Local images: encoded in this build, and taken from the cache's encoded images.
    images: result.images,
  };
}

/** A new entry, newer than every other (the next scheduled build's one change), in `entries` (a folder of `dir`). */
export async function addEntry(dir, round, entries = 'content/entries') {
  const today = new Date().toISOString().slice(0, 10);
  const file = join(dir, entries, `${today}-bench-new-entry-${round}.md`);
  await writeFile(file, `---\ntitle: A new entry ${round}\nslug: bench-new-entry-${round}\npublish_at: '${today}'\nstatus: published\ntags: []\n---\n\nOne new paragraph, with \`code\` and a [link](https://example.com/).\n`);
  return file;
}

export async function run() {
  // BENCH_NODE's version, in the figures: this machine's Node is not always the product's.
  const NODE_VERSION = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  const entries = await corpus();
  const figures = {};
  // Directories are removed at the end: removing thousands of files slows the file
  // creation that follows on this disk (see ../disk.mjs), which both builds would pay.
  const dirs = [];
  try {
    for (const n of SIZES) {
      const dir = await mkdtemp(join(tmpdir(), `bench-build-${n}-`));
      dirs.push(dir);
      const files = await writeContent(dir, entries, n);
      const plainInput = await writePlain(dir, files);
      const imageCount = Math.min(IMAGES, n);
      const imageProject = imageCount > 0 ? await writeImageProject(dir, files, imageCount) : undefined;
      dirs.push(await settleDisk());
      let outputs = 0;
      const out = () => join(dir, `out-${++outputs}`);
      // Relative to the project (cwd), as a user types them: with an absolute --input,
      // Eleventy 3.1 does not apply the directory data file (entries/entries.json), so the
      // pages would be written without their layout.
      const plainArgs = (output) => [ELEVENTY, `--input=${relative(dir, plainInput)}`, `--output=${relative(dir, output)}`, '--config=plain.config.mjs', '--quiet'];
      // BENCH_SITE_URL: the site URL of the base-path runs (default a GitHub Pages project site).
      const prefixed = process.env.BENCH_SITE_URL ?? 'https://acme.github.io/repo/';
      const env = (siteUrl, extra = {}) => ({ ...process.env, CHANGELOG_SITE_URL: siteUrl, NO_COLOR: '1', ...extra });
      const runs = { plain: [], plainPagefind: [], oursRoot: [], oursPrefix: [], warm: [], imagesCold: [], imagesWarm: [] };
      for (let i = 0; i < ROUNDS; i++) {
        // Alternated: each of ours next to a plain build, so that they share the machine's moment.
        runs.oursRoot.push(await measure([CLI, '--json', 'build', '--no-cache'], { cwd: dir, env: env('https://changelog.example.com/', { CHANGELOG_OUTPUT_DIR: out() }) }));
        runs.plain.push(await measure(plainArgs(out()), { cwd: dir }));
        // Cold under the base path, with an empty cache folder (as the workflow's first run):
        // the warm run below starts from the cache it writes.
        const cacheDir = join(dir, `cache-${i}`);
        runs.oursPrefix.push(await measure([CLI, '--json', 'build'], { cwd: dir, env: env(prefixed, { CHANGELOG_OUTPUT_DIR: out(), CHANGELOG_BUILD_CACHE: cacheDir }) }));
        // The same with the screenshots, cold: every image encoded into an empty cache.
        const imageCache = join(dir, `image-cache-${i}`);
        if (imageProject) runs.imagesCold.push(await measure([CLI, '--json', 'build'], { cwd: imageProject, env: env(prefixed, { CHANGELOG_OUTPUT_DIR: out(), CHANGELOG_BUILD_CACHE: imageCache }) }));
        const plainOut = out();
        const script = `${JSON.stringify(NODE)} ${plainArgs(plainOut).map((a) => JSON.stringify(a)).join(' ')} && ${JSON.stringify(NODE)} ${JSON.stringify(PAGEFIND)} --site ${JSON.stringify(plainOut)} >/dev/null`;
        runs.plainPagefind.push(await measure(['-c', script], { cwd: dir }, '/bin/sh'));
        const added = await addEntry(dir, i);
        runs.warm.push(await measure([CLI, '--json', 'build'], { cwd: dir, env: env(prefixed, { CHANGELOG_OUTPUT_DIR: out(), CHANGELOG_BUILD_CACHE: cacheDir }) }));
        await rm(added);
        if (imageProject) {
          const addedThere = await addEntry(imageProject, i);
          runs.imagesWarm.push(await measure([CLI, '--json', 'build'], { cwd: imageProject, env: env(prefixed, { CHANGELOG_OUTPUT_DIR: out(), CHANGELOG_BUILD_CACHE: imageCache }) }));
          await rm(addedThere);
        }
      }
      const best = Object.fromEntries(Object.entries(runs).filter(([, v]) => v.length > 0).map(([k, v]) => [k, fastest(v)]));
      const fastestRun = (list) => list.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      const pairs = (a, b) => runs[a].map((r, i) => ratio(r.seconds, runs[b][i].seconds));
      figures[`${n} entries`] = {
        node: NODE_VERSION,
        plainEleventy: best.plain,
        plainEleventyPagefind: best.plainPagefind,
        oursRoot: { ...best.oursRoot, ...timingsOf(runs.oursRoot.reduce((a, b) => (b.seconds < a.seconds ? b : a))) },
        oursPrefix: { ...best.oursPrefix, ...timingsOf(runs.oursPrefix.reduce((a, b) => (b.seconds < a.seconds ? b : a))) },
        warmPrefix: { ...best.warm, ...timingsOf(runs.warm.reduce((a, b) => (b.seconds < a.seconds ? b : a))) },
        ...(imageProject && {
          images: imageCount,
          imagesColdPrefix: { ...best.imagesCold, ...timingsOf(fastestRun(runs.imagesCold)) },
          imagesWarmPrefix: { ...best.imagesWarm, ...timingsOf(fastestRun(runs.imagesWarm)) },
        }),
        // Fastest against fastest, and each round's pair (alternated runs share the machine's load).
        ratios: {
          prefixVsPlainPagefind: ratio(best.oursPrefix.seconds, best.plainPagefind.seconds),
          prefixVsPlainPagefindByRound: pairs('oursPrefix', 'plainPagefind'),
          rootVsPlainPagefind: ratio(best.oursRoot.seconds, best.plainPagefind.seconds),
          rootVsPlainPagefindByRound: pairs('oursRoot', 'plainPagefind'),
          prefixVsPlain: ratio(best.oursPrefix.seconds, best.plain.seconds),
          rootVsPlain: ratio(best.oursRoot.seconds, best.plain.seconds),
          rootVsPlainByRound: pairs('oursRoot', 'plain'),
          warmVsPlainPagefind: ratio(best.warm.seconds, best.plainPagefind.seconds),
          warmVsPlainPagefindByRound: pairs('warm', 'plainPagefind'),
          // The same builds with the screenshots against without them (cold: all encoded; warm: none).
          ...(imageProject && {
            imagesColdVsNone: ratio(best.imagesCold.seconds, best.oursPrefix.seconds),
            imagesColdVsNoneByRound: pairs('imagesCold', 'oursPrefix'),
            imagesWarmVsNone: ratio(best.imagesWarm.seconds, best.warm.seconds),
            imagesWarmVsNoneByRound: pairs('imagesWarm', 'warm'),
            imagesWarmVsPlainPagefind: ratio(best.imagesWarm.seconds, best.plainPagefind.seconds),
          }),
          cpu: {
            prefixVsPlainPagefind: ratio(best.oursPrefix.cpuSeconds, best.plainPagefind.cpuSeconds),
            rootVsPlainPagefind: ratio(best.oursRoot.cpuSeconds, best.plainPagefind.cpuSeconds),
            warmVsPlainPagefind: ratio(best.warm.cpuSeconds, best.plainPagefind.cpuSeconds),
            ...(imageProject && {
              imagesColdVsNone: ratio(best.imagesCold.cpuSeconds, best.oursPrefix.cpuSeconds),
              imagesWarmVsNone: ratio(best.imagesWarm.cpuSeconds, best.warm.cpuSeconds),
            }),
          },
        },
      };
      console.log(n, NODE_VERSION, JSON.stringify(figures[`${n} entries`].ratios));
    }
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return figures;
}
