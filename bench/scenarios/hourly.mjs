// hourly: what one run of the scheduled job costs on a 1,000-entry repository.
// A "team repository" made from this one (git archive of HEAD) mirrors 1,000 entries (the
// real corpus, repeated) and has a deployed build recorded. Each run is what the workflow
// does, on a fresh clone: clone, `npm ci --offline` (the warm npm cache of setup-node),
// `sync --skip-build` in GitHub Actions mode (writes site_changed), then `build` only when
// it says true, then `commit-back`. Run 1: nothing changed on the service. Run 2: one entry
// was added. The comparison: the build every run did before the gate (on run 1's clone).
// Seconds per phase (wall) and requests (the emulator's request log).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { corpusStore, runCli } from './pull.mjs';

export const name = 'hourly';
export const description = 'the scheduled job on a fresh clone of a 1,000-entry repository: nothing changed, then one entry added (npm ci from a warm cache, sync, the decision, build): seconds and requests';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COUNT = Number(process.env.BENCH_HOURLY_COUNT ?? 1000);
const SITE_URL = 'https://acme.github.io/changelog/';
const GIT_ID = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.test', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.test', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

/** The environment of a child: this one without CHANGELOG_* and GITHUB_*, plus `extra`. */
function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  return { ...env, ...GIT_ID, NO_COLOR: '1', ...extra };
}
const sh = (cmd, args, cwd, env = cleanEnv()) => execFileSync(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const seconds = (ms) => Number((ms / 1000).toFixed(1));

/** Times a synchronous step, ms. */
function timed(fn) {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export async function run() {
  if (!existsSync(join(ROOT, '../shared/corpus'))) throw new Error('corpus not found (../shared/corpus)');
  const { store, ws } = corpusStore(COUNT);
  const emu = await startEmulator({ port: 0, store });
  const work = await mkdtemp(join(tmpdir(), 'bench-hourly-'));
  const outputFile = join(work, 'github-output');
  const actionsEnv = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token', CHANGELOG_SITE_URL: SITE_URL, GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: outputFile };
  const cli = (args, cwd) => runCli(args, cwd, cleanEnv(actionsEnv));
  try {
    // The team repository: this one at HEAD, mirroring COUNT entries, with a recorded build.
    const origin = join(work, 'origin.git');
    sh('git', ['init', '-q', '--bare', '-b', 'main', origin], work);
    const seed = join(work, 'seed');
    sh('git', ['clone', '-q', origin, seed], work);
    sh('sh', ['-c', `git -C "${ROOT}" archive HEAD | tar -x -C "${seed}"`], work);
    sh('npm', ['ci', '--offline', '--no-audit', '--no-fund'], seed);
    for (const args of [['sync', '--skip-build'], ['build']]) {
      const r = await cli(args, seed);
      if (r.code !== 0) throw new Error(`seed ${args[0]} exited ${r.code}: ${r.stderr}`);
    }
    sh('git', ['add', '-A'], seed);
    sh('git', ['commit', '-qm', `a team repository with ${COUNT} entries`], seed);
    sh('git', ['push', '-q', 'origin', 'main'], seed);

    /** One scheduled run on a fresh clone; `forceBuild` adds the build every run did before the gate. */
    const scheduledRun = async (label) => {
      const dir = join(work, label);
      const phases = {};
      phases.clone = timed(() => sh('git', ['clone', '-q', '--depth', '1', `file://${origin}`, dir], work));
      phases.install = timed(() => sh('npm', ['ci', '--offline', '--no-audit', '--no-fund'], dir));
      await writeFile(outputFile, '');
      const before = emu.log.length;
      const s = await cli(['sync', '--skip-build'], dir);
      if (s.code !== 0) throw new Error(`sync exited ${s.code}: ${s.stderr}`);
      phases.sync = s.wallMs;
      const requests = emu.log.length - before;
      const siteChanged = /site_changed=(\w+)/.exec(await readFile(outputFile, 'utf8'))?.[1];
      if (siteChanged === 'true') {
        const b = await cli(['build'], dir);
        if (b.code !== 0) throw new Error(`build exited ${b.code}: ${b.stderr}`);
        phases.build = b.wallMs;
      }
      const c = await cli(['commit-back', 'content', '.changelog'], dir);
      if (c.code !== 0) throw new Error(`commit-back exited ${c.code}: ${c.stderr}`);
      phases.commit = c.wallMs;
      // The request ledger is never committed (the workflow's cache carries it): an unchanged run commits nothing.
      const committed = !/nothing to commit/i.test(c.stderr);
      const total = Object.values(phases).reduce((a, b) => a + b, 0);
      return { dir, siteChanged, committed, requests, seconds: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, seconds(v)])), totalSeconds: seconds(total), totalMs: total };
    };

    const unchanged = await scheduledRun('run-1-unchanged');
    // What every run did before the gate: the build, on the unchanged clone.
    const always = await cli(['build'], unchanged.dir);
    if (always.code !== 0) throw new Error(`build exited ${always.code}: ${always.stderr}`);
    store.insertEntry(ws, { title: 'One more entry', slug: 'one-more-entry', publish_at: new Date().toISOString().slice(0, 10), status: 'published', content: '<p>New.</p>' });
    const added = await scheduledRun('run-2-one-added');
    // The figures without the run's folder and its total in ms (reported in seconds).
    const strip = (r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'dir' && k !== 'totalMs'));
    return {
      entries: COUNT,
      unchanged: strip(unchanged),
      oneAdded: strip(added),
      beforeTheGate: { unchangedRunSeconds: seconds(unchanged.totalMs + always.wallMs), buildSeconds: seconds(always.wallMs) },
      ratioUnchangedToBefore: Number((unchanged.totalMs / (unchanged.totalMs + always.wallMs)).toFixed(2)),
      met: unchanged.siteChanged === 'false' && added.siteChanged === 'true',
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    };
  } finally {
    await emu.close();
    await rm(work, { recursive: true, force: true });
  }
}
