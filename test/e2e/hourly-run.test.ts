// (test/e2e: two runner clones of one bare origin, a real Eleventy build: about 40 s.)
// The scheduled job's own steps (.github/workflows/changelog.yml, job `sync`), run twice as
// two hourly runs on two fresh runners against the emulator and a bare origin
// (test/helpers/workflow-job.ts): the first mirrors the workspace and commits it; the second
// finds nothing new and commits nothing (issue 27: "24 bot commits a day"). The day's
// request ledger is not committed: the workflow's cache carries it, and the second run's
// budget counts the first run's requests (the 1,440 a day hold across runs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/emulator.js';
import { git, installTool, loadJob, runJob, type JobInputs, type StepRun } from '../helpers/workflow-job.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SITE_URL = 'https://acme.github.io/changelog/';
const BOT_MESSAGE = 'changelog: sync from the service [skip ci]';

/** git with no global or system configuration, and none of the caller's CHANGELOG_* or GITHUB_*. */
const ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
for (const k of Object.keys(ENV)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete ENV[k];

const ledgerTotal = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { ledger: Array<[number, number]> }).ledger.reduce((n, [, c]) => n + c, 0);

describe('two hourly runs of the scheduled job', () => {
  let fx: EmulatorFixture;
  let dir = '';
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    fx = await emulatorFixture();
    fx.store.insertEntry(fx.ws, { title: 'First', publish_at: '2026-01-05', content: '<p>one</p>' });
    fx.store.insertEntry(fx.ws, { title: 'Second', publish_at: '2026-02-05', content: '<p>two</p>' });
  });
  afterAll(() => fx?.close());

  /** A runner: a fresh clone of origin with the tool installed, running the job once. */
  async function hourlyRun(origin: string, n: number): Promise<{ runs: StepRun[]; clone: string }> {
    const clone = join(dir, `runner-${n}`);
    git(ENV, dir, 'clone', '-q', origin, clone);
    installTool(clone, ROOT);
    const temp = join(dir, `runner-${n}-temp`);
    mkdirSync(temp);
    const inputs: JobInputs = { baseUrl: fx.emu.url, token: fx.token, siteUrl: SITE_URL, cacheDir: join(dir, 'actions-cache'), tempDir: temp, env: ENV };
    const runs = await runJob(loadJob(join(ROOT, '.github/workflows/changelog.yml'), 'sync'), clone, inputs);
    for (const r of runs) expect(r.code, `${r.name}:\n${r.out}`).toBe(0);
    return { runs, clone };
  }

  it('the second commits nothing, and its budget counts the first run\'s requests', async () => {
    // origin: a team's repository as the template makes it (this .gitignore), and one that
    // an earlier version left with the ledger committed.
    const origin = join(dir, 'origin.git');
    git(ENV, dir, 'init', '-q', '--bare', '-b', 'main', origin);
    const seed = join(dir, 'seed');
    git(ENV, dir, 'clone', '-q', origin, seed);
    writeFileSync(join(seed, '.gitignore'), readFileSync(join(ROOT, '.gitignore')));
    writeFileSync(join(seed, 'package.json'), JSON.stringify({ name: 'team-changelog', private: true, dependencies: { 'changelog-sync': '*' } }));
    mkdirSync(join(seed, 'content/entries'), { recursive: true });
    writeFileSync(join(seed, 'content/entries/.gitkeep'), '');
    mkdirSync(join(seed, '.changelog'));
    writeFileSync(join(seed, '.changelog/budget.json'), '{\n  "ledger": []\n}\n');
    git(ENV, seed, 'add', '-A');
    git(ENV, seed, 'add', '-f', '.changelog/budget.json');
    git(ENV, seed, '-c', 'user.name=seed', '-c', 'user.email=seed@example.test', 'commit', '-qm', 'seed');
    git(ENV, seed, 'push', '-q', 'origin', 'main');

    // Run 1: the entries are new; the mirror and the build's record are committed, the ledger
    // is not (and the copy an earlier version committed is untracked).
    const first = await hourlyRun(origin, 1);
    const requests1 = fx.emu.log.length;
    expect(requests1).toBeGreaterThan(0);
    expect(git(ENV, origin, 'log', '--format=%an|%s', 'main').split('\n')).toEqual([`github-actions[bot]|${BOT_MESSAGE}`, 'seed|seed']);
    const tree = git(ENV, origin, 'ls-tree', '-r', '--name-only', 'main').split('\n');
    expect(tree).toEqual(expect.arrayContaining(['content/entries/2026-01-05-first.md', '.changelog/state.json', '.changelog/site-inputs.json']));
    expect(tree).not.toContain('.changelog/budget.json');
    expect(first.runs.find((r) => r.name.startsWith('Build the site'))!.skipped).toBe(false);
    // The ledger went to the cache: every request of run 1.
    expect(ledgerTotal(join(dir, 'actions-cache/.changelog/budget.json'))).toBe(requests1);

    // Run 2, an hour later on another runner: nothing new.
    const head = git(ENV, origin, 'rev-parse', 'main');
    const second = await hourlyRun(origin, 2);
    const requests2 = fx.emu.log.length - requests1;
    expect(requests2).toBeGreaterThan(0);
    expect(git(ENV, origin, 'rev-parse', 'main')).toBe(head);
    expect(second.runs.find((r) => r.name.startsWith('Commit the mirror'))!.out).toContain('Nothing to commit');
    expect(second.runs.find((r) => r.name.startsWith('Build the site'))!.skipped).toBe(true);
    // Its budget started from run 1's ledger: run 2's summary and the saved ledger count both runs.
    const total = requests1 + requests2;
    expect(ledgerTotal(join(dir, 'actions-cache/.changelog/budget.json'))).toBe(total);
    expect(readFileSync(join(dir, 'runner-2-temp/step-summary.md'), 'utf8')).toContain(`| requests left today | ${1440 - total} |`);
    expect(git(ENV, second.clone, 'status', '--porcelain')).toBe('');
  }, 300_000);
});
