// The pull-request check (.github/workflows/changelog-check.yml) runs on every pull request,
// so it must be a quick no-op when no entry changed: its own steps, run by bash as the runner
// runs them, in a clone where a pull request's branch is checked out.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../helpers/process/cli.js';
import { installTool } from '../../helpers/process/workflow-runner.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
type Step = { id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string> };
const steps = (parseYaml(readFileSync(join(ROOT, '.github/workflows/changelog-check.yml'), 'utf8')) as { jobs: { check: { steps: Step[] } } }).jobs.check.steps;

const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'w', GIT_AUTHOR_EMAIL: 'w@x', GIT_COMMITTER_NAME: 'w', GIT_COMMITTER_EMAIL: 'w@x' };
for (const k of Object.keys(GIT_ENV)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete GIT_ENV[k];
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
const write = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};

describe('the pull-request check on a pull request', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  /** A repository on main with one entry, and a pull request's branch made by `change`; returns the base SHA. */
  function pullRequest(change: () => void): string {
    git(dir, 'init', '-q', '-b', 'main');
    write(join(dir, 'content/entries/2026-01-01-first.md'), '---\ntitle: First\n---\nOne.\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'main');
    const base = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '-b', 'pr');
    change();
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'pr');
    return base;
  }
  /** Runs the `run:` steps as the runner would: the `if:` on the diff step's output, GITHUB_OUTPUT read back. */
  function runSteps(base: string): { ran: string[]; out: string; code: number } {
    const output = join(dir, '..', `${dir.split('/').pop()}-output`);
    const env = { ...GIT_ENV, GITHUB_OUTPUT: output, RUNNER_TEMP: join(dir, '..'), BASE_SHA: base, npm_config_offline: 'true', NO_COLOR: '1' };
    writeFileSync(output, '');
    const ran: string[] = [];
    let out = '';
    for (const step of steps) {
      if (step.if) {
        const id = /steps\.(\w+)\.outputs\.any == 'true'/.exec(step.if)?.[1];
        expect(id, step.if).toBeDefined();
        if (!readFileSync(output, 'utf8').includes('any=true')) continue;
      }
      if (!step.run) continue;
      if (/^npm ci\b/.test(step.run)) {
        installTool(dir);
        ran.push('npm ci');
        continue;
      }
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], { cwd: dir, env, encoding: 'utf8' });
      out += `${r.stdout}${r.stderr}`;
      ran.push(step.run.split('\n')[0]!);
      if (r.status !== 0) return { ran, out, code: r.status ?? 1 };
    }
    return { ran, out, code: 0 };
  }

  it('a pull request that changes no entry passes at once, installing nothing', () => {
    const base = pullRequest(() => write(join(dir, 'README.md'), 'Docs.\n'));
    const r = runSteps(base);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('No entry files changed: nothing to check.');
    expect(r.ran).toHaveLength(1);
  });

  it('a pull request that adds a broken entry installs, checks it and fails', () => {
    const base = pullRequest(() => write(join(dir, 'content/entries/2026-02-01-broken.md'), '---\ntitle: [unclosed\n---\nBody.\n'));
    const r = runSteps(base);
    expect(r.ran).toContain('npm ci');
    expect(r.out).toContain('1 entry files changed.');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('2026-02-01-broken.md');
  });

  it('names as git writes them reach check: non-ASCII, spaces, a leading dash, a line break', () => {
    const names = ['2026-01-01-café.md', '2026-01-02-two words.md', '-2026-01-03-dash.md', '2026-01-04-a\nb.md'];
    const base = pullRequest(() => {
      for (const [i, n] of names.entries()) write(join(dir, 'content/entries', n), `---\ntitle: Entry ${i}\nis_published: true\n---\nBody ${i}.\n`);
    });
    const r = runSteps(base);
    expect(r.out).toContain('4 entry files changed.');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Checked 4 files/);
    expect(r.out).not.toMatch(/does not exist|no such file|unknown option/i);
  });

  it('a pull request that adds a valid entry checks it, then builds the site with it (nothing deployed)', () => {
    const base = pullRequest(() => write(join(dir, 'content/entries/2026-02-01-faster-exports.md'), '---\ntitle: Faster exports\nis_published: true\n---\nExports are **faster**.\n'));
    const r = runSteps(base);
    expect(r.code, r.out).toBe(0);
    expect(r.ran).toEqual(expect.arrayContaining(['npm ci', expect.stringMatching(/changelog-sync check/) as string, expect.stringMatching(/changelog-sync build/) as string]));
    expect(readFileSync(join(dir, '_site/entries/faster-exports/index.html'), 'utf8')).toContain('<strong>faster</strong>');
  });
});
