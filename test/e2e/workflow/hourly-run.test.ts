// (test/e2e: two runner clones of one bare origin, a real Eleventy build: about 40 s.)
// The scheduled job's own steps (the team's .github/workflows/changelog.yml as init writes it,
// calling changelog-sync's reusable .github/workflows/sync.yml; its job `sync`), run twice as
// two hourly runs on two fresh runners against the emulator and a bare origin
// (test/helpers/process/workflow-runner.ts): the first mirrors the workspace and commits it; the second
// finds nothing new and commits nothing (no bot commit an hour). The day's
// request ledger is not committed: the workflow's cache carries it, and the second run's
// budget counts the first run's requests (the 1,440 a day hold across runs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitignoreLines } from '../../../src/cli/init-fit.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';
import { git, GIT_ENV, runWorkflow, stepNamed, teamWorkflow, type JobRun } from '../../helpers/process/workflow-runner.js';

/** What actions/configure-pages answers (no trailing slash, as it does). */
const SITE_URL = 'https://acme.github.io/changelog';
const BOT_MESSAGE = 'changelog: sync from the service [skip ci]';


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

  /** A scheduled run of the job `sync` alone, on a fresh runner: a fresh clone of origin with the tool installed. */
  async function hourlyRun(origin: string, n: number): Promise<JobRun> {
    const world = { workflow: teamWorkflow(dir, 'changelog.yml'), origin, work: dir, deployed: join(dir, 'pages'), pagesBaseUrl: SITE_URL, event: 'schedule', vars: { CHANGELOG_BASE_URL: fx.emu.url }, secrets: { CHANGELOG_TOKEN: fx.token }, env: GIT_ENV };
    const job = (await runWorkflow(world, n, { only: ['sync'] })).sync!;
    for (const step of Object.values(job.steps)) expect(step.outcome, `${step.name}:\n${step.log}`).not.toBe('failure');
    expect(job.result).toBe('success');
    return job;
  }

  it('the second commits nothing, and its budget counts the first run\'s requests', async () => {
    // origin: a team's repository as init makes it (its .gitignore lines), and one that
    // an earlier version left with the ledger committed.
    const origin = join(dir, 'origin.git');
    git(dir, ['init', '-q', '--bare', '-b', 'main', origin]);
    const seed = join(dir, 'seed');
    git(dir, ['clone', '-q', origin, seed]);
    writeFileSync(join(seed, '.gitignore'), `${gitignoreLines({ branch: 'main', branchSource: 'default', contentDir: 'content', stateDir: '.changelog', outputDir: '_site' }).join('\n')}\n`);
    writeFileSync(join(seed, 'package.json'), JSON.stringify({ name: 'team-changelog', private: true, dependencies: { 'changelog-sync': '*' } }));
    mkdirSync(join(seed, 'content/entries'), { recursive: true });
    writeFileSync(join(seed, 'content/entries/.gitkeep'), '');
    mkdirSync(join(seed, '.changelog'));
    writeFileSync(join(seed, '.changelog/budget.json'), '{\n  "ledger": []\n}\n');
    git(seed, ['add', '-A']);
    git(seed, ['add', '-f', '.changelog/budget.json']);
    git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.test', 'commit', '-qm', 'seed']);
    git(seed, ['push', '-q', 'origin', 'main']);

    // Run 1: the entries are new; the mirror and the build's record are committed, the ledger
    // is not (and the copy an earlier version committed is untracked).
    const first = await hourlyRun(origin, 1);
    const requests1 = fx.emu.log.length;
    expect(requests1).toBeGreaterThan(0);
    expect(git(origin, ['log', '--format=%an|%s', 'main']).split('\n')).toEqual([`github-actions[bot]|${BOT_MESSAGE}`, 'seed|seed']);
    const tree = git(origin, ['ls-tree', '-r', '--name-only', 'main']).split('\n');
    expect(tree).toEqual(expect.arrayContaining(['content/entries/2026-01-05-first.md', '.changelog/state.json', '.changelog/site-inputs.json']));
    expect(tree).not.toContain('.changelog/budget.json');
    expect(stepNamed(first, 'Build the site').outcome).not.toBe('skipped');
    // The ledger went to the cache: every request of run 1.
    expect(ledgerTotal(join(dir, 'actions-cache/.changelog/budget.json'))).toBe(requests1);

    // Run 2, an hour later on another runner: nothing new.
    const head = git(origin, ['rev-parse', 'main']);
    const second = await hourlyRun(origin, 2);
    const requests2 = fx.emu.log.length - requests1;
    expect(requests2).toBeGreaterThan(0);
    expect(git(origin, ['rev-parse', 'main'])).toBe(head);
    expect(stepNamed(second, 'Commit the mirror').log).toContain('Nothing to commit');
    expect(stepNamed(second, 'Build the site').outcome).toBe('skipped');
    // Its budget started from run 1's ledger: run 2's summary and the saved ledger count both runs.
    const total = requests1 + requests2;
    expect(ledgerTotal(join(dir, 'actions-cache/.changelog/budget.json'))).toBe(total);
    expect(readFileSync(second.summary, 'utf8')).toContain(`| requests left today | ${1440 - total} |`);
    expect(git(second.dir, ['status', '--porcelain'])).toBe('');
  }, 300_000);
});
