#!/usr/bin/env node
// Compares two checkouts of changelog-sync on the pull, push and build benchmarks in one run:
//
//   node bench/compare.mjs <before> <after> [--rounds 3] [--pull 10000] [--push 120] [--build 10000] [--only pull,push,build]
//
// <before> and <after> are checkout directories, each with its own node_modules and a
// current dist/ (`npm ci && npm run build` there). Both CLIs (<dir>/dist/cli.js) run as
// child processes against the same emulators and the same content, alternated: in every
// round each workload runs for both checkouts one after the other, the order swapped every
// round (before-after, after-before, ...), so that a change in the machine's load falls on
// both. The workloads, as in bench/scenarios/ (pull.mjs, push.mjs, build.mjs):
// - pull: a cold pull of --pull corpus entries into an empty directory, then a no-op pull,
//   then an incremental one after three entries were edited on the service (the hourly case);
// - push: --push new entries at 60 requests a "minute" of BENCH_WINDOW_MS (10,000) ms;
// - build: a cold build of --build corpus entries under a base path with an empty build
//   cache, then a warm one after one new entry (the scheduled build's case).
// Prints, per workload, the medians of CPU time (user and system of the CLI, its threads
// and the processes it waited for, such as Pagefind; the steadier figure on a shared
// machine) and wall time, and the ratios after/before of the medians and of each round's
// pair. Use `flock /tmp/bench.lock node bench/compare.mjs ...` on a shared machine.
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmulator } from '../dist/emulator/server.js';
import { EmulatorStore } from '../dist/emulator/store.js';
import { settleDisk } from './disk.mjs';
import { median, ratio } from './figures.mjs';
import { addEntry, corpus, writeContent } from './scenarios/build.mjs';
import { corpusStore, runCli } from './scenarios/pull.mjs';
import { writeNewEntries } from './scenarios/push.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '3' },
    pull: { type: 'string', default: '10000' },
    push: { type: 'string', default: '120' },
    build: { type: 'string', default: '10000' },
    only: { type: 'string', default: 'pull,push,build' },
  },
});
if (positionals.length !== 2) throw new Error('usage: node bench/compare.mjs <before checkout> <after checkout> [--rounds N] [--pull N] [--push N] [--build N] [--only pull,push,build]');
const checkouts = positionals.map((dir, i) => ({ label: i === 0 ? 'before' : 'after', cli: join(resolve(dir), 'dist/cli.js') }));
for (const c of checkouts) if (!existsSync(c.cli)) throw new Error(`${c.cli} not found: run \`npm run build\` in that checkout first`);
const ROUNDS = Number(values.rounds);
const PULL = Number(values.pull);
const PUSH = Number(values.push);
const BUILD = Number(values.build);
const only = new Set(values.only.split(','));
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 10_000);


/** Runs a CLI; throws with its stderr when it fails. */
async function cli(checkout, args, cwd, env) {
  const r = await runCli(args, cwd, env, checkout.cli);
  if (r.code !== 0) throw new Error(`${checkout.label}: ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

const dirs = [];
const newDir = async (prefix) => {
  const dir = await mkdtemp(join(tmpdir(), `bench-compare-${prefix}-`));
  dirs.push(dir);
  return dir;
};

/** Workloads: each runs once for a checkout and returns its measured phases. */
const workloads = [];
const servers = [];
try {
  if (only.has('pull')) {
    const { store, ws } = corpusStore(PULL);
    let edits = 0;
    // No service limits here: every round's pulls go to one workspace.
    const emu = await startEmulator({ port: 0, store, limits: { perMinute: 1e9, perDay: 1e9 } });
    servers.push(emu);
    const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token' };
    workloads.push({
      name: 'pull',
      async run(checkout) {
        const dir = await newDir('pull');
        const cold = await cli(checkout, ['--json', 'pull'], dir, env);
        const written = readdirSync(join(dir, 'content/entries')).length;
        if (written !== PULL) throw new Error(`${checkout.label}: cold pull wrote ${written} of ${PULL} entries`);
        const noop = await cli(checkout, ['--json', 'pull'], dir, env);
        const edited = store.listEntries(ws).slice(0, 3);
        for (const e of edited) store.updateEntry(ws, e.identifier, { content: `${e.content}<p>Edit ${++edits}.</p>` });
        const incremental = await cli(checkout, ['--json', 'pull'], dir, env);
        return { cold, noop, incremental };
      },
    });
  }
  if (only.has('push')) {
    const store = new EmulatorStore();
    const emu = await startEmulator({ port: 0, store, limits: { perMinute: 60, windowMs: WINDOW_MS }, faults: { latencyMs: 20 } });
    servers.push(emu);
    let n = 0;
    workloads.push({
      name: 'push',
      async run(checkout) {
        // A workspace of its own each time: its own rate limit, nothing pushed before.
        const token = `bench-push-${++n}`;
        const ws = store.addWorkspace({ name: `Bench ${n}`, tokens: [token] });
        const dir = await newDir('push');
        await writeNewEntries(dir, PUSH);
        const push = await cli(checkout, ['--json', 'push'], dir, { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: token, CHANGELOG_RATE_WINDOW_MS: String(WINDOW_MS) });
        const created = store.listEntries(ws);
        if (created.length !== PUSH || new Set(created.map((e) => e.title)).size !== PUSH) throw new Error(`${checkout.label}: push created ${created.length} entries of ${PUSH} (or some twice)`);
        return { push };
      },
    });
  }
  if (only.has('build')) {
    const entries = await corpus();
    // Each checkout builds its own copy of the same content: a build writes in its project.
    const projects = new Map();
    for (const c of checkouts) {
      const dir = await newDir(`build-${c.label}`);
      await writeContent(dir, entries, BUILD);
      projects.set(c, dir);
    }
    // Each build into an output folder of its own; the warm build reads the cold one's cache.
    let outputs = 0;
    const env = (dir, round) => ({ CHANGELOG_SITE_URL: 'https://acme.github.io/repo/', NO_COLOR: '1', CHANGELOG_OUTPUT_DIR: join(dir, `out-${++outputs}`), CHANGELOG_BUILD_CACHE: join(dir, `cache-${round}`) });
    const rounds = new Map();
    workloads.push({
      name: 'build',
      async run(checkout) {
        const dir = projects.get(checkout);
        const round = (rounds.get(checkout) ?? 0) + 1;
        rounds.set(checkout, round);
        const cold = await cli(checkout, ['--json', 'build'], dir, env(dir, round));
        const added = await addEntry(dir, round);
        const warm = await cli(checkout, ['--json', 'build'], dir, env(dir, round));
        await rm(added);
        return { cold, warm };
      },
    });
  }
  dirs.push(await settleDisk());

  // results[workload][phase][label] = [{ cpuMs, wallMs }, ...] by round
  const results = {};
  const load = [loadavg()[0]];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
    for (const w of workloads) {
      for (const checkout of order) {
        const phases = await w.run(checkout);
        for (const [phase, r] of Object.entries(phases)) {
          const key = `${w.name} ${phase}`;
          results[key] ??= { before: [], after: [] };
          results[key][checkout.label].push({ cpuMs: r.cpuMs, wallMs: r.wallMs });
        }
        console.error(`round ${round + 1}/${ROUNDS} ${w.name} ${checkout.label}: ${Object.entries(phases).map(([p, r]) => `${p} cpu ${r.cpuMs} ms wall ${r.wallMs} ms`).join(', ')}`);
      }
    }
    load.push(loadavg()[0]);
  }

  const summary = {};
  for (const [key, { before, after }] of Object.entries(results)) {
    const m = (rs, f) => median(rs.map((r) => r[f]));
    summary[key] = {
      cpuMs: { before: m(before, 'cpuMs'), after: m(after, 'cpuMs') },
      wallMs: { before: m(before, 'wallMs'), after: m(after, 'wallMs') },
      ratioCpu: ratio(m(after, 'cpuMs'), m(before, 'cpuMs')),
      ratioWall: ratio(m(after, 'wallMs'), m(before, 'wallMs')),
      ratioCpuByRound: after.map((r, i) => ratio(r.cpuMs, before[i].cpuMs)),
      ratioWallByRound: after.map((r, i) => ratio(r.wallMs, before[i].wallMs)),
    };
  }
  console.log(`before: ${positionals[0]}\nafter:  ${positionals[1]}\nrounds: ${ROUNDS}; pull ${PULL}, push ${PUSH}, build ${BUILD} entries; 1-minute load average by round: ${load.map((l) => l.toFixed(2)).join(' ')}`);
  console.log('\nworkload        cpu before  cpu after  ratio   wall before  wall after  ratio   cpu ratio by round');
  for (const [key, s] of Object.entries(summary)) {
    console.log(
      `${key.padEnd(15)} ${String(s.cpuMs.before).padStart(8)} ms ${String(s.cpuMs.after).padStart(7)} ms ${s.ratioCpu.toFixed(3).padStart(6)}  ${String(s.wallMs.before).padStart(9)} ms ${String(s.wallMs.after).padStart(8)} ms ${s.ratioWall.toFixed(3).padStart(6)}   ${s.ratioCpuByRound.join(' ')}`,
    );
  }
  console.log(`\n${JSON.stringify({ rounds: ROUNDS, sizes: { pull: PULL, push: PUSH, build: BUILD }, loadAverage1mByRound: load, summary })}`);
} finally {
  for (const s of servers) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}
