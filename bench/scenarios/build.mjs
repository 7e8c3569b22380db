// Scenario "build": the site build (Eleventy, and Pagefind beside it) of 1,000 and 10,000 entries made
// from the real corpus (repeated, with distinct slugs), next to a plain Eleventy build of the
// same Markdown files with a one-line layout, both measured in the same run as child
// processes, alternated, the fastest of BENCH_BUILD_ROUNDS (2) each: wall time, CPU time and
// peak RSS of the whole process tree (node, its threads and the Pagefind binary) read from
// /proc (Linux). BENCH_BUILD_SIZES=1000 runs one size.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { runnerImport } from 'vite';
import { settleDisk } from '../disk.mjs';

export const name = 'build';
export const description = 'changelog-sync build (Eleventy + Pagefind) of 1,000 and 10,000 corpus entries vs plain Eleventy with a one-line layout';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const ELEVENTY = join(ROOT, 'node_modules/@11ty/eleventy/cmd.cjs');
const SIZES = (process.env.BENCH_BUILD_SIZES ?? '1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_BUILD_ROUNDS ?? 2);

/** The corpus, through Vite's module runner (the loader is TypeScript, shared with the tests). */
async function corpus() {
  const { module } = await runnerImport(join(ROOT, 'test/corpus/corpus.ts'), { root: ROOT, configFile: false, logLevel: 'silent' });
  return module.loadCorpus();
}

/** Writes `n` entry files (the corpus repeated, slugs made distinct) and the workspace data. */
async function writeContent(dir, entries, n) {
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
    const fm = yaml.dump({ title: e.title, slug, publish_at: e.date, status: 'published', tags }, { lineWidth: -1 });
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

/** The same Markdown files as a plain Eleventy project: one-line layout, Markdown not preprocessed. */
async function writePlain(dir, files) {
  const input = join(dir, 'plain');
  await mkdir(join(input, 'entries'), { recursive: true });
  await mkdir(join(input, '_includes'), { recursive: true });
  for (const f of files) await writeFile(join(input, 'entries', f), await readFile(join(dir, 'content/entries', f)));
  await writeFile(join(input, 'entries/entries.json'), JSON.stringify({ layout: 'plain.njk' }));
  await writeFile(join(input, '_includes/plain.njk'), '<!doctype html><html lang="en"><title>{{ title }}</title><main>{{ content | safe }}</main></html>\n');
  await writeFile(join(dir, 'plain.config.mjs'), "export const config = { markdownTemplateEngine: false };\n");
  return input;
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
async function measure(args, options) {
  const cpuBefore = await childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
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

export async function run() {
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
      dirs.push(await settleDisk());
      const plainArgs = [ELEVENTY, `--input=${plainInput}`, `--output=${join(dir, 'plain-out')}`, `--config=${join(dir, 'plain.config.mjs')}`, '--quiet'];
      const oursArgs = [CLI, '--json', 'build'];
      // BENCH_SITE_URL: a site URL with a path measures a build under a base path (GitHub Pages' /REPO/).
      const env = { ...process.env, CHANGELOG_SITE_URL: process.env.BENCH_SITE_URL ?? 'https://changelog.example.com/', NO_COLOR: '1' };
      // Alternated, the fastest of each: the machine is shared, a single run can be unlucky.
      const plainRuns = [];
      const oursRuns = [];
      for (let i = 0; i < ROUNDS; i++) {
        plainRuns.push(await measure(plainArgs, { cwd: dir }));
        oursRuns.push(await measure(oursArgs, { cwd: dir, env }));
      }
      const fastest = (runs) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      const plain = fastest(plainRuns);
      const ours = fastest(oursRuns);
      const result = JSON.parse(ours.stdout);
      figures[`${n} entries`] = {
        plainEleventy: { seconds: plain.seconds, cpuSeconds: plain.cpuSeconds, peakRssMiB: Math.max(...plainRuns.map((r) => r.peakRssMiB)), runs: plainRuns.map((r) => r.seconds) },
        changelogSyncBuild: {
          seconds: ours.seconds,
          cpuSeconds: ours.cpuSeconds,
          peakRssMiB: Math.max(...oursRuns.map((r) => r.peakRssMiB)),
          runs: oursRuns.map((r) => r.seconds),
          // From the start: the data (entries read and rendered), then Eleventy's pages; the
          // search index runs beside them (from its start to its end).
          dataSeconds: Math.round(result.timings.dataMs / 100) / 10,
          eleventySeconds: Math.round(result.timings.eleventyMs / 100) / 10,
          pagefindSeconds: Math.round(result.timings.searchMs / 100) / 10,
          pages: result.pages,
          indexed: result.indexed,
        },
        timeRatio: Math.round((ours.seconds / plain.seconds) * 100) / 100,
        cpuRatio: Math.round((ours.cpuSeconds / plain.cpuSeconds) * 100) / 100,
      };
      console.log(n, JSON.stringify(figures[`${n} entries`]));
    }
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return figures;
}
