// The GitHub workflows: validated by a well-kept validator (@action-validator), and the
// properties the scheduled job must have asserted one by one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VALIDATOR = createRequire(import.meta.url).resolve('@action-validator/cli/cli.mjs');
const WORKFLOWS = ['.github/workflows/changelog.yml', '.github/workflows/changelog-check.yml', '.github/workflows/ci.yml'];

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string>; if?: string; id?: string };
type Job = { permissions?: Record<string, string>; steps: Step[]; env?: Record<string, string>; needs?: string; environment?: unknown };
type Workflow = { on: Record<string, unknown>; permissions?: Record<string, string>; concurrency?: { group: string; 'cancel-in-progress'?: boolean }; jobs: Record<string, Job> };

const load = (path: string): Workflow => yaml.load(readFileSync(`${ROOT}/${path}`, 'utf8')) as Workflow;

describe('workflow files', () => {
  it.each(WORKFLOWS)('%s passes action-validator', (path) => {
    // Throws (and fails the test) on a non-zero exit: a schema violation.
    const out = execFileSync(process.execPath, [VALIDATOR, `${ROOT}/${path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).not.toMatch(/error/i);
  });

  it('the validator does reject a broken workflow (so the check above can fail)', () => {
    const broken = `${ROOT}/test-artifacts/broken.yml`;
    execFileSync('mkdir', ['-p', `${ROOT}/test-artifacts`]);
    execFileSync('sh', ['-c', `printf 'name: x\\non: push\\njobs:\\n  a:\\n    runs-on: ubuntu-latest\\n    stepz: []\\n' > ${broken}`]);
    expect(() => execFileSync(process.execPath, [VALIDATOR, broken], { stdio: 'pipe' })).toThrow();
  });
});

describe('the scheduled changelog workflow', () => {
  const wf = load('.github/workflows/changelog.yml');
  const text = readFileSync(`${ROOT}/.github/workflows/changelog.yml`, 'utf8');
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);

  it('runs hourly, on demand, and on pushes to main that touch content/', () => {
    const schedule = wf.on.schedule as Array<{ cron: string }>;
    expect(schedule).toHaveLength(1);
    expect(schedule[0]!.cron).toMatch(/^\d{1,2} \* \* \* \*$/);
    expect(wf.on).toHaveProperty('workflow_dispatch');
    expect(wf.on.push).toEqual({ branches: ['main'], paths: ['content/**'] });
  });

  it('never runs twice at once', () => {
    expect(wf.concurrency?.group).toBeTruthy();
    expect(wf.concurrency?.['cancel-in-progress']).toBe(false);
  });

  it('has least-privilege permissions: none by default, each job only what it needs', () => {
    expect(wf.permissions).toEqual({});
    expect(wf.jobs.sync!.permissions).toEqual({ contents: 'write' });
    expect(wf.jobs.deploy!.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
  });

  it('checks out, sets up node with the npm cache, installs from the lock file, syncs', () => {
    const uses = steps.map((s) => s.uses ?? s.run ?? '');
    expect(uses.some((u) => u.startsWith('actions/checkout@'))).toBe(true);
    const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.cache).toBe('npm');
    expect(steps.some((s) => s.run?.includes('npm ci'))).toBe(true);
    expect(steps.some((s) => s.run?.includes('changelog-sync sync'))).toBe(true);
  });

  it('commits the mirror and the state back as the bot, with [skip ci], only when something changed', () => {
    const commit = steps.find((s) => s.run?.includes('git commit'))!;
    expect(commit.run).toContain('git add content .changelog');
    expect(commit.run).toContain('git diff --cached --quiet');
    expect(commit.run).toContain('github-actions[bot]');
    expect(commit.run).toContain('[skip ci]');
  });

  it('builds, then deploys with the official Pages actions', () => {
    const order = steps.map((s) => s.uses ?? s.run ?? '');
    const build = order.findIndex((u) => u.includes('changelog-sync build'));
    const upload = order.findIndex((u) => u.startsWith('actions/upload-pages-artifact@'));
    const deploy = order.findIndex((u) => u.startsWith('actions/deploy-pages@'));
    expect(build).toBeGreaterThan(order.findIndex((u) => u.includes('git commit')));
    expect(upload).toBeGreaterThan(build);
    expect(deploy).toBeGreaterThan(upload);
  });

  it('takes the token from a repository secret and never echoes a secret', () => {
    expect(wf.jobs.sync!.env?.CHANGELOG_TOKEN).toBe('${{ secrets.CHANGELOG_TOKEN }}');
    for (const s of steps) expect(s.run ?? '').not.toMatch(/secrets\./);
    expect(text).not.toMatch(/echo[^\n]*(TOKEN|secrets)/);
  });
});

describe('the pull-request check workflow', () => {
  const wf = load('.github/workflows/changelog-check.yml');
  it('checks the changed entry files with changelog-sync check, read-only, no secret', () => {
    expect(wf.on.pull_request).toEqual({ paths: ['content/entries/**'] });
    expect(wf.permissions).toEqual({ contents: 'read' });
    const run = wf.jobs.check!.steps.map((s) => s.run ?? '').join('\n');
    expect(run).toContain('git diff --name-only');
    expect(run).toContain('changelog-sync check');
    expect(readFileSync(`${ROOT}/.github/workflows/changelog-check.yml`, 'utf8')).not.toContain('secrets.');
  });
});
