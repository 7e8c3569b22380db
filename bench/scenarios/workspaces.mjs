// workspaces: what several workspaces cost (docs/sync.md "Several workspaces", docs/site.md
// "Several products"): one workspace of BENCH_WORKSPACES_COUNT (10,000) entries against two
// workspaces of half as many each, the same entries split in two (the corpus repeated, as
// pull.mjs makes it: the first half in `app`, the second in `api`). One emulator serves the
// three workspaces, a token each, without limits (a sync makes a few requests a workspace;
// what is measured is the CLI, not the service's rate limit); it runs in this process.
// Each round, each phase runs for both projects one after the other, the order swapped every
// round, so that a change in the machine's load falls on both:
// - sync cold: `sync --skip-build` into an empty git repository (one: no configuration, the
//   one-workspace project of today; two: `changelog.config.json` naming `app` and `api`);
// - sync warm: the same again, nothing new on the service;
// - build cold: `build` of the mirror just synced, under a base path, with an empty build cache
//   (one: the one-workspace site; two: one site of two sections);
// - build warm: the same with that cache, after one new entry (in the first workspace).
// The real CLI as a child process (BENCH_NODE, else this Node); wall time, CPU time and peak
// RSS of its process tree (`measure` in build.mjs); the medians of BENCH_WORKSPACES_ROUNDS (2)
// rounds and the ratios two/one, of the medians and of each round's pair; the requests each
// sync made (the emulator's log) and each build's pages and stages (its `--json`).
//
//   BENCH_WORKSPACES_COUNT=10000 BENCH_WORKSPACES_ROUNDS=2 flock /tmp/bench.lock npm run bench -- workspaces
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';
import { settleDisk } from '../disk.mjs';
import { median, ratio } from '../figures.mjs';
import { addEntry, measure } from './build.mjs';
import { insertCorpusEntries, loadCorpus } from './pull.mjs';

export const name = 'workspaces';
export const description = 'two workspaces of 5,000 entries each against one of 10,000: sync --skip-build (cold into an empty repository, warm with nothing new) and build (cold, warm after one new entry), ratios two/one of wall time, CPU and peak RSS';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const COUNT = Number(process.env.BENCH_WORKSPACES_COUNT ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WORKSPACES_ROUNDS ?? 2);
const SITE_URL = 'https://acme.github.io/repo/';
const PHASES = ['syncCold', 'syncWarm', 'buildCold', 'buildWarm'];

/** The environment of a child: this one without CHANGELOG_* and GITHUB_*, plus `extra`. */
function cleanEnv(extra) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  return { ...env, NO_COLOR: '1', ...extra };
}

/** The pull results of a sync's `--json`: one, or one per workspace. */
const pullsOf = (json) => (json.workspaces ? Object.values(json.workspaces).map((w) => w.pull) : [json.pull]);

export async function run() {
  if (!existsSync(join(ROOT, '../shared/corpus'))) throw new Error('corpus not found (../shared/corpus)');
  if (COUNT < 2) throw new Error('BENCH_WORKSPACES_COUNT must be 2 or more');
  const corpus = loadCorpus();
  const store = new EmulatorStore();
  const half = Math.floor(COUNT / 2);
  insertCorpusEntries(store, store.addWorkspace({ name: 'Bench', tokens: ['bench-one'] }), corpus, 0, COUNT);
  insertCorpusEntries(store, store.addWorkspace({ name: 'Bench App', tokens: ['bench-app'] }), corpus, 0, half);
  insertCorpusEntries(store, store.addWorkspace({ name: 'Bench API', tokens: ['bench-api'] }), corpus, half, COUNT - half);
  const emu = await startEmulator({ port: 0, store, limits: { perMinute: 1e9, perDay: 1e9 } });
  // The two projects: their entry folders (the first is where the warm build's new entry goes),
  // configuration and tokens.
  const projects = [
    { label: 'one', entries: ['content/entries'], env: { CHANGELOG_TOKEN: 'bench-one' } },
    {
      label: 'two',
      entries: ['content/app/entries', 'content/api/entries'],
      env: { CHANGELOG_TOKEN_APP: 'bench-app', CHANGELOG_TOKEN_API: 'bench-api' },
      config: { siteTitle: 'Bench products', workspaces: { app: { title: 'Bench App', tokenEnv: 'CHANGELOG_TOKEN_APP' }, api: { title: 'Bench API', tokenEnv: 'CHANGELOG_TOKEN_API' } } },
    },
  ];
  // Directories are removed at the end: removing thousands of files slows the file creation
  // that follows on this disk (see ../disk.mjs), which the next cold phase would pay.
  const dirs = [];
  try {
    /** results[phase][label]: one run a round. */
    const results = Object.fromEntries(PHASES.map((p) => [p, { one: [], two: [] }]));
    dirs.push(await settleDisk());
    const load = [loadavg()[0]];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? projects : [...projects].reverse();
      const dirOf = new Map();
      for (const p of projects) {
        const dir = await mkdtemp(join(tmpdir(), `bench-workspaces-${p.label}-`));
        dirs.push(dir);
        execFileSync('git', ['init', '-q', dir]);
        if (p.config) await writeFile(join(dir, 'changelog.config.json'), `${JSON.stringify(p.config, null, 2)}\n`);
        dirOf.set(p, dir);
      }
      const cli = async (p, args, extra = {}) => {
        const dir = dirOf.get(p);
        const before = emu.log.length;
        const r = await measure([CLI, '--json', ...args], { cwd: dir, env: cleanEnv({ CHANGELOG_BASE_URL: emu.url, CHANGELOG_SITE_URL: SITE_URL, ...p.env, ...extra }) });
        return { ...r, requests: emu.log.length - before, json: JSON.parse(r.stdout) };
      };
      const build = (p, extra) => cli(p, ['build'], { CHANGELOG_OUTPUT_DIR: join(dirOf.get(p), `_site-${round}`), CHANGELOG_BUILD_CACHE: join(dirOf.get(p), `.cache-${round}`), ...extra });
      const steps = {
        syncCold: async (p) => {
          const r = await cli(p, ['sync', '--skip-build']);
          const written = p.entries.reduce((n, e) => n + readdirSync(join(dirOf.get(p), e)).length, 0);
          if (written !== COUNT) throw new Error(`${p.label}: the cold sync wrote ${written} entry files of ${COUNT}`);
          return r;
        },
        syncWarm: async (p) => {
          const r = await cli(p, ['sync', '--skip-build']);
          const created = pullsOf(r.json).reduce((n, pulled) => n + pulled.created.length + pulled.updated.length, 0);
          if (created !== 0) throw new Error(`${p.label}: the warm sync wrote ${created} entries, not none`);
          return r;
        },
        buildCold: (p) => build(p),
        buildWarm: async (p) => {
          await addEntry(dirOf.get(p), round, p.entries[0]);
          return build(p);
        },
      };
      for (const phase of PHASES) {
        for (const p of order) {
          const r = await steps[phase](p);
          results[phase][p.label].push(r);
          console.error(`round ${round + 1}/${ROUNDS} ${phase} ${p.label}: wall ${r.seconds} s, cpu ${r.cpuSeconds} s, peak RSS ${r.peakRssMiB} MiB, ${r.requests} requests`);
        }
      }
      load.push(loadavg()[0]);
    }

    /** A phase's figures for one project: medians, each round's runs, and what the last run did. */
    const figuresOf = (runs, phase) => {
      const last = runs.at(-1).json;
      return {
        seconds: median(runs.map((r) => r.seconds * 1000)) / 1000,
        cpuSeconds: median(runs.map((r) => r.cpuSeconds * 1000)) / 1000,
        peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
        runs: runs.map((r) => r.seconds),
        cpuRuns: runs.map((r) => r.cpuSeconds),
        ...(phase.startsWith('sync')
          ? { requests: runs.map((r) => r.requests) }
          : { pages: last.pages, stagesMs: { data: last.timings.dataMs, eleventy: last.timings.eleventyMs, search: last.timings.searchMs }, cache: last.cache && { hits: last.cache.hits, rendered: last.cache.rendered, pages: last.cache.pages }, search: last.search }),
      };
    };
    const figures = { entries: COUNT, split: [half, COUNT - half], rounds: ROUNDS, node: execFileSync(process.env.BENCH_NODE || process.execPath, ['--version'], { encoding: 'utf8' }).trim(), loadAverage1mByRound: load.map((l) => Number(l.toFixed(2))) };
    for (const phase of PHASES) {
      const { one, two } = results[phase];
      const f = { one: figuresOf(one, phase), two: figuresOf(two, phase) };
      figures[phase] = {
        ...f,
        ratioWall: ratio(f.two.seconds, f.one.seconds),
        ratioWallByRound: two.map((r, i) => ratio(r.seconds, one[i].seconds)),
        ratioCpu: ratio(f.two.cpuSeconds, f.one.cpuSeconds),
        // CPU time is the steadier figure on a shared machine (build.mjs `measure`).
        ratioCpuByRound: two.map((r, i) => ratio(r.cpuSeconds, one[i].cpuSeconds)),
        ratioPeakRss: ratio(f.two.peakRssMiB, f.one.peakRssMiB),
      };
    }
    console.error(`two/one by phase (wall, cpu, peak RSS): ${PHASES.map((p) => `${p} ${figures[p].ratioWall} ${figures[p].ratioCpu} ${figures[p].ratioPeakRss}`).join('; ')}`);
    return figures;
  } finally {
    await emu.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
}
