// Scenario "prewarm": what starting the conversion threads early is worth on a first pull.
// On a first pull (an empty mirror) `pull()` starts the conversion pool while the service
// answers and sends each chunk of 100 entries to the threads as soon as it is planned
// (mirror/convert-pool.ts, RenderQueue); without the prewarm the pool starts once the plan
// is complete and converts everything then. Cold pulls of BENCH_PULL_COUNT (10,000) corpus
// entries from the emulator into empty directories, through bench/pull-once.mjs (the
// library's pull as the CLI calls it; the CLI has no switch for the prewarm), with the
// prewarm off and on, alternated in each of BENCH_PREWARM_ROUNDS (4) rounds, the order
// swapped every round (off-on, on-off, ...) so that a drift of the machine's load falls on
// both. CPU time (user and system of the process and its threads) is the steadier figure
// on a shared machine; wall time is what a user waits.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { settleDisk } from '../disk.mjs';
import { median, ratio } from '../figures.mjs';
import { corpusStore, runCli } from './pull.mjs';

export const name = 'prewarm';
export const description = 'first pull of 10,000 entries with the conversion threads started early (prewarm) and without, alternated: CPU and wall time, ratios on/off';

const DRIVER = fileURLToPath(new URL('../pull-once.mjs', import.meta.url));
const COUNT = Number(process.env.BENCH_PULL_COUNT ?? 10_000);
const ROUNDS = Number(process.env.BENCH_PREWARM_ROUNDS ?? 4);


export async function run() {
  const { store } = corpusStore(COUNT);
  const emu = await startEmulator({ port: 0, store });
  const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token' };
  const dirs = [];
  const runs = { off: [], on: [] };
  const load = [loadavg()[0]];
  try {
    dirs.push(await settleDisk());
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
        const dir = await mkdtemp(join(tmpdir(), `bench-prewarm-${mode}-`));
        dirs.push(dir);
        const r = await runCli([join(dir, 'content'), join(dir, '.changelog'), mode], dir, env, DRIVER);
        if (r.code !== 0) throw new Error(`pull (prewarm ${mode}) exited ${r.code}: ${r.stderr}`);
        const written = readdirSync(join(dir, 'content/entries')).length;
        if (written !== COUNT) throw new Error(`pull (prewarm ${mode}) wrote ${written} of ${COUNT} entries`);
        runs[mode].push({ wallMs: r.wallMs, cpuMs: r.cpuMs, peakRssMb: r.peakRssMb, threads: r.json?.threads });
        // Directories are removed at the end (see ../disk.mjs).
      }
      load.push(loadavg()[0]);
    }
    const summary = (rs) => ({
      wallMs: { min: Math.min(...rs.map((r) => r.wallMs)), median: median(rs.map((r) => r.wallMs)), runs: rs.map((r) => r.wallMs) },
      cpuMs: { min: Math.min(...rs.map((r) => r.cpuMs)), median: median(rs.map((r) => r.cpuMs)), runs: rs.map((r) => r.cpuMs) },
      peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      threads: rs[0].threads,
    });
    const off = summary(runs.off);
    const on = summary(runs.on);
    return {
      entries: COUNT,
      rounds: ROUNDS,
      off,
      on,
      // Below 1: the prewarm saves that fraction. Each round's pair ran next to each other.
      ratiosOnToOff: {
        cpuMedian: ratio(on.cpuMs.median, off.cpuMs.median),
        wallMedian: ratio(on.wallMs.median, off.wallMs.median),
        cpuByRound: runs.on.map((r, i) => ratio(r.cpuMs, runs.off[i].cpuMs)),
        wallByRound: runs.on.map((r, i) => ratio(r.wallMs, runs.off[i].wallMs)),
      },
      loadAverage1mByRound: load.map((l) => Number(l.toFixed(2))),
    };
  } finally {
    await emu.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
}
