// The pull-request check runs on every pull request, so it must be a quick no-op when no
// entry changed. The team's .github/workflows/changelog-check.yml as init writes it, calling
// changelog-sync's reusable .github/workflows/check.yml, run by the tests' workflow runner
// (test/helpers/process/workflow-runner.ts) as GitHub runs it for a pull request: the
// pull request's branch checked out of a bare origin, its base commit in the event.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../helpers/process/cli.js';
import { git, GIT_ENV, runWorkflow, stepNamed, teamWorkflow, type JobRun } from '../../helpers/process/workflow-runner.js';

const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
const commit = (cwd: string, message: string) => {
  git(cwd, ['add', '-A']);
  git(cwd, ['-c', 'user.name=w', '-c', 'user.email=w@example.test', 'commit', '-qm', message]);
};

describe('the pull-request check on a pull request', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  /** origin with main (one entry) and a pull request's branch `pr` made by `change`; runs the check on it. */
  async function pullRequest(change: (clone: string) => void): Promise<JobRun> {
    const origin = join(dir, 'origin.git');
    git(dir, ['init', '-q', '--bare', '-b', 'main', origin]);
    const clone = join(dir, 'writer');
    git(dir, ['clone', '-q', origin, clone]);
    write(join(clone, 'content/entries/2026-01-01-first.md'), '---\ntitle: First\n---\nOne.\n');
    commit(clone, 'main');
    const base = git(clone, ['rev-parse', 'HEAD']);
    git(clone, ['checkout', '-q', '-b', 'pr']);
    change(clone);
    commit(clone, 'pr');
    git(clone, ['push', '-q', 'origin', 'main', 'pr']);
    mkdirSync(join(dir, 'work'));
    const runs = await runWorkflow(
      {
        workflow: teamWorkflow(dir, 'changelog-check.yml'),
        origin,
        work: join(dir, 'work'),
        deployed: join(dir, 'pages'),
        pagesBaseUrl: 'https://acme.github.io/changelog',
        event: 'pull_request',
        ref: 'pr',
        payload: { pull_request: { number: 7, base: { sha: base } }, repository: { name: 'changelog' } },
        vars: {},
        secrets: {},
        env: GIT_ENV,
      },
      1,
    );
    return runs.check!;
  }

  it('a pull request that changes no entry passes at once, installing nothing', async () => {
    const check = await pullRequest((clone) => write(join(clone, 'README.md'), 'Docs.\n'));
    expect(check.result, check.log).toBe('success');
    expect(check.log).toContain('No entry files changed: nothing to check.');
    expect(Object.values(check.steps).filter((s) => s.outcome !== 'skipped').map((s) => s.name)).toEqual([expect.stringMatching(/^actions\/checkout@/), 'Find the changed entry files']);
  });

  it('a pull request that adds a broken entry installs, checks it and fails', async () => {
    const check = await pullRequest((clone) => write(join(clone, 'content/entries/2026-02-01-broken.md'), '---\ntitle: [unclosed\n---\nBody.\n'));
    expect(check.result).toBe('failure');
    expect(check.log).toContain('1 entry files changed.');
    expect(stepNamed(check, 'npm ci').outcome).toBe('success');
    expect(stepNamed(check, 'Check changed entry files').outcome).toBe('failure');
    expect(check.log).toContain('2026-02-01-broken.md');
  });

  it('names as git writes them reach check: non-ASCII, spaces, a leading dash, a line break', async () => {
    const names = ['2026-01-01-café.md', '2026-01-02-two words.md', '-2026-01-03-dash.md', '2026-01-04-a\nb.md'];
    const check = await pullRequest((clone) => {
      for (const [i, n] of names.entries()) write(join(clone, 'content/entries', n), `---\ntitle: Entry ${i}\nis_published: true\n---\nBody ${i}.\n`);
    });
    expect(check.log).toContain('4 entry files changed.');
    expect(check.result, check.log).toBe('success');
    expect(stepNamed(check, 'Check changed entry files').outcome).toBe('success');
    expect(check.log).toMatch(/Checked 4 files/);
    expect(check.log).not.toMatch(/does not exist|no such file|unknown option/i);
  });

  it('a pull request that adds a valid entry checks it, then builds the site with it (nothing deployed)', async () => {
    const check = await pullRequest((clone) => write(join(clone, 'content/entries/2026-02-01-faster-exports.md'), '---\ntitle: Faster exports\nis_published: true\n---\nExports are **faster**.\n'));
    expect(check.result, check.log).toBe('success');
    expect(stepNamed(check, 'Check changed entry files').outcome).toBe('success');
    expect(stepNamed(check, 'Build the site with them').outcome).toBe('success');
    const page = readFileSync(join(check.dir, '_site/entries/faster-exports/index.html'), 'utf8');
    expect(page).toContain('<strong>faster</strong>');
    // The repository's Pages address (the event's repository name), as the scheduled job deploys it.
    expect(page).toContain('https://acme.github.io/changelog/');
  });
});
