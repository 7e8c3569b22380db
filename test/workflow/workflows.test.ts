// The GitHub workflows: validated by a well-kept validator (@action-validator), and the
// properties the pipeline must have asserted one by one: the reusable workflows of the tool
// (.github/workflows/sync.yml, check.yml), the team's two short workflows that call them as
// init writes them (src/cli/team/), and the tool's own CI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { RepositoryFit } from '../../src/cli/init-fit.js';
import { fitTeamFile, type ToolWorkflows } from '../../src/cli/team-workflows.js';
import { DEFAULT_CACHE_DIR } from '../../src/core/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);
// `require.resolve` by that name: knip reads it as a use of the package.
const VALIDATOR = require.resolve('@action-validator/cli/cli.mjs');
/** The team's files as init writes them for a release (under test-artifacts/, to validate them as files). */
const FIT: RepositoryFit = { branch: 'main', branchSource: 'default', contentDir: 'content', stateDir: '.changelog', outputDir: '_site' };
const RELEASE: ToolWorkflows = { repository: 'changelog-sync/changelog-sync', ref: '0123456789abcdef0123456789abcdef01234567', version: '0.1.0' };
mkdirSync(`${ROOT}/test-artifacts/team`, { recursive: true });
for (const name of ['changelog.yml', 'changelog-check.yml']) {
  writeFileSync(`${ROOT}/test-artifacts/team/${name}`, fitTeamFile(`src/cli/team/${name}`, readFileSync(`${ROOT}/src/cli/team/${name}`, 'utf8'), FIT, RELEASE));
}
const WORKFLOWS = ['.github/workflows/sync.yml', '.github/workflows/check.yml', '.github/workflows/ci.yml', '.github/workflows/release.yml', 'test-artifacts/team/changelog.yml', 'test-artifacts/team/changelog-check.yml'];

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string>; if?: string; id?: string; 'continue-on-error'?: boolean };
type Job = { permissions?: Record<string, string>; steps: Step[]; env?: Record<string, string>; needs?: string | string[]; environment?: unknown; if?: string; outputs?: Record<string, string>; uses?: string; secrets?: unknown; with?: Record<string, unknown> };
type Workflow = { on: Record<string, unknown>; env?: Record<string, string>; permissions?: Record<string, string>; concurrency?: { group: string; 'cancel-in-progress'?: boolean }; jobs: Record<string, Job> };

const load = (path: string): Workflow => parseYaml(readFileSync(`${ROOT}/${path}`, 'utf8')) as Workflow;
/** The reusable sync workflow. */
const wf = load('.github/workflows/sync.yml');

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

describe("the team's scheduled workflow (what init writes)", () => {
  const team = parseYaml(fitTeamFile('src/cli/team/changelog.yml', readFileSync(`${ROOT}/src/cli/team/changelog.yml`, 'utf8'), FIT, RELEASE)) as Workflow;
  const call = team.jobs.changelog!;

  it("runs hourly, on demand, and on pushes to main that touch the site's inputs", () => {
    const schedule = team.on.schedule as Array<{ cron: string }>;
    expect(schedule).toHaveLength(1);
    expect(schedule[0]!.cron).toMatch(/^\d{1,2} \* \* \* \*$/);
    expect(team.on).toHaveProperty('workflow_dispatch');
    expect(team.on.push).toEqual({ branches: ['main'], paths: ['content/**', 'site/**', 'changelog.config.json', '.eleventy.js', 'package-lock.json'] });
  });

  it('never runs twice at once', () => {
    expect(team.concurrency?.group).toBeTruthy();
    expect(team.concurrency?.['cancel-in-progress']).toBe(false);
  });

  it("calls the tool's reusable workflow at a release's commit, with the secrets inherited, granting exactly what its jobs ask for", () => {
    expect(call.uses).toBe(`changelog-sync/changelog-sync/.github/workflows/sync.yml@${RELEASE.ref}`);
    expect(call.secrets).toBe('inherit');
    expect(team.permissions).toEqual({});
    const asked: Record<string, string> = {};
    for (const job of Object.values(wf.jobs)) for (const [k, v] of Object.entries(job.permissions ?? {})) if (asked[k] !== 'write') asked[k] = v;
    expect(call.permissions).toEqual(asked);
    expect(asked).toEqual({ contents: 'write', pages: 'write', 'id-token': 'write', actions: 'write' });
  });
});

describe('the reusable sync workflow', () => {
  const text = readFileSync(`${ROOT}/.github/workflows/sync.yml`, 'utf8');
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
  it('is called only (workflow_call), with the folders as inputs and the token as an optional secret', () => {
    expect(Object.keys(wf.on)).toEqual(['workflow_call']);
    const called = wf.on.workflow_call as { inputs: Record<string, { default: string }>; secrets: Record<string, { required: boolean }> };
    expect(Object.keys(called.inputs).sort()).toEqual(['keep-alive', 'output-dir', 'state-dir', 'workspace-secrets']);
    // Several workspaces: the secrets' names, none by default (a project of one workspace).
    expect(called.inputs['workspace-secrets']!.default).toBe('');
    // Not required: a missing one fails the first step, with the annotation naming where to add it.
    expect(called.secrets.CHANGELOG_TOKEN!.required).toBe(false);
  });

  it('has least-privilege permissions: none by default, each job only what it needs', () => {
    expect(wf.permissions).toEqual({});
    expect(wf.jobs.sync!.permissions).toEqual({ contents: 'write', pages: 'read' });
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

  it('commits the mirror and the state back as the bot, with [skip ci], through commit-back (rebase and retry), even after a failed build', () => {
    const commit = steps.find((s) => s.run?.includes('commit-back'))!;
    // No paths: commit-back takes the configured content and state directories.
    expect(commit.run).toMatch(/npx --no-install changelog-sync commit-back --attempts [3-5] --message "[^"]*\[skip ci\]"$/m);
    expect(commit.run).toContain('github-actions[bot]');
    expect(commit.run).toContain('[skip ci]');
    expect(commit.if).toBe('${{ !cancelled() }}');
    // test/e2e/workflow/commit-back-step.test.ts runs this very script against a moved main.
  });

  it("takes the site URL from actions/configure-pages unless the repository variable is set, the same for sync and build", () => {
    const sync = wf.jobs.sync!.steps;
    const pages = sync.findIndex((s) => s.uses?.startsWith('actions/configure-pages@'));
    expect(pages).toBeGreaterThan(-1);
    const id = sync[pages]!.id!;
    expect(id).toBeTruthy();
    const expected = `\${{ vars.CHANGELOG_SITE_URL || steps.${id}.outputs.base_url }}`;
    const syncStep = sync.findIndex((s) => s.run?.includes('changelog-sync sync'));
    const buildStep = sync.findIndex((s) => s.run?.includes('changelog-sync build'));
    expect(syncStep).toBeGreaterThan(pages);
    // Both see the same URL: it is one of the inputs sync compares with the last build's.
    expect(sync[syncStep]!.env?.CHANGELOG_SITE_URL).toBe(expected);
    expect(sync[buildStep]!.env?.CHANGELOG_SITE_URL).toBe(expected);
    expect(wf.jobs.sync!.env?.CHANGELOG_SITE_URL).toBeUndefined();
  });

  it("keeps the build cache between runs: restored after npm ci (which empties node_modules/), before the build, at the folder the build uses", () => {
    const sync = wf.jobs.sync!.steps;
    const cache = sync.findIndex((s) => s.uses?.startsWith('actions/cache@'));
    const npmCi = sync.findIndex((s) => s.run?.includes('npm ci'));
    const build = sync.findIndex((s) => s.run?.includes('changelog-sync build'));
    expect(cache).toBeGreaterThan(npmCi);
    expect(cache).toBeLessThan(build);
    expect(sync[cache]!.with?.path).toBe(DEFAULT_CACHE_DIR);
    // A new key each run (keys are immutable), the newest restored by prefix.
    expect(String(sync[cache]!.with?.key)).toContain('${{ github.run_id }}');
    expect(String(sync[cache]!.with?.key).startsWith(String(sync[cache]!.with?.['restore-keys']))).toBe(true);
    expect(sync[cache]!.if).toBe(sync[build]!.if);
  });

  it('builds, uploads and deploys only when site_changed, on a manual run, or on a push', () => {
    const sync = wf.jobs.sync!.steps;
    const syncStep = sync.find((s) => s.run?.includes('changelog-sync sync'))!;
    const build = sync.find((s) => s.run?.includes('changelog-sync build'))!;
    expect(build.if).toBe(`\${{ steps.${syncStep.id}.outputs.site_changed == 'true' || github.event_name == 'workflow_dispatch' || github.event_name == 'push' }}`);
    const upload = sync.find((s) => s.uses?.startsWith('actions/upload-pages-artifact@'))!;
    expect(upload.if).toBe(`\${{ steps.${build.id}.outcome == 'success' }}`);
    expect(wf.jobs.sync!.outputs?.deploy).toBe(`\${{ steps.${build.id}.outcome == 'success' }}`);
    expect(wf.jobs.deploy!.needs).toBe('sync');
    expect(wf.jobs.deploy!.if).toBe("${{ needs.sync.outputs.deploy == 'true' }}");
  });

  it('forgets the record of a build whose deployment failed, on the branch as it is now (either deployment)', () => {
    const forget = wf.jobs['forget-build']!;
    expect(forget.needs).toEqual(['sync', 'deploy', 'push-after-deploy', 'redeploy']);
    expect(forget.if).toBe(
      "${{ always() && ((needs.sync.outputs.deploy == 'true' && needs.deploy.result != 'success') || (needs.push-after-deploy.outputs.deploy == 'true' && needs.redeploy.result != 'success')) }}",
    );
    expect(forget.permissions).toEqual({ contents: 'write' });
    expect(forget.steps[0]).toMatchObject({ uses: expect.stringMatching(/^actions\/checkout@/) as string, with: { ref: '${{ github.ref_name }}' } });
    const run = forget.steps.map((s) => s.run ?? '').join('\n');
    expect(run).toMatch(/changelog-sync commit-back --forget-site-build --attempts \d /);
  });

  it('pushes the entries deferred for their images after the deployment, then builds and deploys again (test/e2e/workflow/workflow-images.test.ts runs it)', () => {
    expect(wf.jobs.sync!.outputs?.awaiting_images).toBe('${{ steps.sync.outputs.awaiting_images }}');
    const after = wf.jobs['push-after-deploy']!;
    expect(after.needs).toEqual(['sync', 'deploy']);
    expect(after.if).toBe("${{ !cancelled() && needs.sync.outputs.awaiting_images == 'true' && needs.deploy.result == 'success' }}");
    expect(after.permissions).toEqual({ contents: 'write', pages: 'read' });
    expect(after.env?.CHANGELOG_TOKEN).toBe('${{ secrets.CHANGELOG_TOKEN }}');
    expect(after.steps[0]).toMatchObject({ uses: expect.stringMatching(/^actions\/checkout@/) as string, with: { ref: '${{ github.ref_name }}' } });
    const upload = after.steps.find((s) => s.uses?.startsWith('actions/upload-pages-artifact@'))!;
    const redeploy = wf.jobs.redeploy!;
    expect(redeploy.needs).toBe('push-after-deploy');
    expect(redeploy.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    // Two Pages artifacts in one run: the second has its own name, and the second deployment takes it.
    expect(upload.with?.name).toBe('github-pages-after-push');
    expect(redeploy.steps[0]!.with?.artifact_name).toBe(upload.with?.name);
  });

  it('takes the token from a repository secret and never echoes a secret', () => {
    expect(wf.jobs.sync!.env?.CHANGELOG_TOKEN).toBe('${{ secrets.CHANGELOG_TOKEN }}');
    for (const s of steps) expect(s.run ?? '').not.toMatch(/secrets\./);
    expect(text).not.toMatch(/echo[^\n]*(TOKEN|secrets)/);
  });
});

describe('the pull-request check workflow: the reusable one and the team\'s that calls it', () => {
  const check = load('.github/workflows/check.yml');
  const steps = check.jobs.check!.steps;
  const team = parseYaml(fitTeamFile('src/cli/team/changelog-check.yml', readFileSync(`${ROOT}/src/cli/team/changelog-check.yml`, 'utf8'), FIT, RELEASE)) as Workflow;
  it('checks the changed entry files with changelog-sync check, read-only, no secret', () => {
    expect(check.permissions).toEqual({ contents: 'read' });
    expect(Object.keys(check.on)).toEqual(['workflow_call']);
    const run = steps.map((s) => s.run ?? '').join('\n');
    expect(run).toContain('git -c core.quotePath=false diff -z --name-only');
    expect(run).toContain('xargs -0 npx --no-install changelog-sync check --');
    expect(readFileSync(`${ROOT}/.github/workflows/check.yml`, 'utf8')).not.toContain('secrets.');
    expect(team.jobs.check).toEqual({ permissions: { contents: 'read' }, uses: `changelog-sync/changelog-sync/.github/workflows/check.yml@${RELEASE.ref}`, with: { 'content-dir': 'content' } });
  });

  it("the team's runs on every pull request (no paths filter), so that it can be a required check", () => {
    expect(team.on).toEqual({ pull_request: null });
    expect(team.permissions).toEqual({ contents: 'read' });
  });

  it('is a quick no-op when no entry changed: the diff comes first, nothing is installed without a change', () => {
    const diff = steps.findIndex((s) => s.run?.includes('diff -z --name-only'));
    const id = steps[diff]!.id!;
    expect(id).toBeTruthy();
    expect(steps[diff]!.run).toMatch(/echo "any=(true|false)" >> "\$GITHUB_OUTPUT"/);
    const after = steps.slice(diff + 1);
    expect(after.map((s) => s.uses ?? s.run)).toEqual([expect.stringMatching(/^actions\/setup-node@/), 'npm ci --no-audit --no-fund', expect.stringContaining('changelog-sync check'), expect.stringContaining('changelog-sync build')]);
    for (const s of after) expect(s.if).toBe(`\${{ steps.${id}.outputs.any == 'true' }}`);
    expect(steps.slice(0, diff).map((s) => s.uses)).toEqual([expect.stringMatching(/^actions\/checkout@/)]);
  });
});

describe('one version decides', () => {
  const major = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version.split('.')[0];
  it.each(['sync.yml', 'check.yml'])("%s passes its major version, package.json's, to every CLI it runs; each runs the CLI of the team's lock file", (file) => {
    const reusable = load(`.github/workflows/${file}`);
    // A major release updates it (this test fails until it does).
    expect(reusable.env).toEqual({ CHANGELOG_SYNC_WORKFLOW_VERSION: major });
    for (const [name, job] of Object.entries(reusable.jobs)) {
      const runs = job.steps.map((s) => s.run ?? '');
      const cli = runs.findIndex((r) => r.includes('npx --no-install changelog-sync '));
      if (cli < 0) continue;
      expect(runs.findIndex((r) => r.startsWith('npm ci')), name).toBeGreaterThan(-1);
      expect(runs.findIndex((r) => r.startsWith('npm ci')), name).toBeLessThan(cli);
      for (const r of runs) expect(r, name).not.toMatch(/dist\/cli\.js|npx changelog-sync|node_modules\/\.bin/);
    }
  });
});

describe('kept alive', () => {
  it('a scheduled run of a repository quiet for 30 days enables the calling workflow again (the 60-day timer), in a job of its own with actions: write', () => {
    const quiet = wf.jobs.sync!.steps.find((s) => s.id === 'quiet')!;
    expect(quiet.run).toContain('git log -1 --format=%ct');
    expect(quiet.run).toContain('-ge 30');
    expect(wf.jobs.sync!.outputs).toMatchObject({ quiet_days: '${{ steps.quiet.outputs.days }}', keep_alive: '${{ steps.quiet.outputs.keep_alive }}' });
    const job = wf.jobs['keep-alive']!;
    expect(job.needs).toBe('sync');
    // always(): also when the sync failed.
    expect(job.if).toBe("${{ always() && inputs.keep-alive && github.event_name == 'schedule' && needs.sync.outputs.keep_alive == 'true' }}");
    expect(job.permissions).toEqual({ actions: 'write' });
    const run = job.steps.map((s) => s.run ?? '').join('\n');
    expect(run).toContain('--request PUT');
    expect(run).toContain('"$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/actions/workflows/$workflow/enable"');
    // test/e2e/workflow/team-workflows.test.ts runs it against a loopback fake of the API.
  });
});

describe('workflow hygiene (every workflow, and the copies init writes)', () => {
  const all = WORKFLOWS.map((path) => ({ path, wf: load(path), text: readFileSync(`${ROOT}/${path}`, 'utf8') }));

  it('pins every action to a full commit SHA, with its version in a comment', () => {
    let pinned = 0;
    for (const { path, text } of all) {
      const lines = text.split('\n').filter((l) => /^\s*(- )?uses:/.test(l));
      for (const line of lines) {
        expect(line, `${path}: ${line.trim()}`).toMatch(/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
        pinned++;
      }
    }
    expect(pinned).toBeGreaterThanOrEqual(10);
  });

  it('pins one action to one commit everywhere (a Dependabot update moves them together)', () => {
    const pins = new Map<string, Set<string>>();
    for (const { text } of all) {
      for (const m of text.matchAll(/uses: (actions\/[\w-]+)(?:\/[\w-]+)?@([0-9a-f]{40}) # (v[\d.]+)/g)) {
        pins.set(m[1]!, (pins.get(m[1]!) ?? new Set()).add(`${m[2]} ${m[3]}`));
      }
    }
    expect([...pins.keys()].sort()).toEqual(['actions/cache', 'actions/checkout', 'actions/configure-pages', 'actions/deploy-pages', 'actions/setup-node', 'actions/upload-pages-artifact']);
    for (const [name, versions] of pins) expect([...versions], name).toHaveLength(1);
  });

  it('gives every job a timeout (a job that calls a workflow cannot have one: the called jobs have theirs)', () => {
    for (const { path, wf } of all) {
      for (const [name, job] of Object.entries(wf.jobs)) if (!job.uses) expect((job as { 'timeout-minutes'?: number })['timeout-minutes'], `${path}: ${name}`).toBeGreaterThan(0);
    }
  });

  it('has a Dependabot configuration for the actions and for npm', () => {
    const config = parseYaml(readFileSync(`${ROOT}/.github/dependabot.yml`, 'utf8')) as { version: number; updates: Array<{ 'package-ecosystem': string; directory: string; schedule: { interval: string } }> };
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
    for (const u of config.updates) expect(u).toMatchObject({ directory: '/', schedule: { interval: expect.any(String) as string } });
  });

  it("init writes the team a Dependabot configuration for npm and for the actions (the tool's workflows' `uses:` among them)", () => {
    const config = parseYaml(readFileSync(`${ROOT}/src/cli/team/dependabot.yml`, 'utf8')) as { version: number; updates: Array<{ 'package-ecosystem': string; directory: string; schedule: { interval: string } }> };
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
    for (const u of config.updates) expect(u).toMatchObject({ directory: '/', schedule: { interval: expect.any(String) as string } });
  });

  it("the team's workflows are at most 40 lines each", () => {
    for (const name of ['changelog.yml', 'changelog-check.yml']) expect(readFileSync(`${ROOT}/test-artifacts/team/${name}`, 'utf8').trimEnd().split('\n').length, name).toBeLessThanOrEqual(40);
  });
});

describe("the tool's own CI", () => {
  const wf = load('.github/workflows/ci.yml');
  it("runs wherever the tool's repository is (no team's repository is made from it: init writes theirs), so no job is guarded", () => {
    const jobs = Object.values(wf.jobs);
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job.if).toBeUndefined();
  });

  it("runs the same checks as .ci/run: the type check and npm test, and lint, knip and the layer rule, each a script of package.json", () => {
    const scripts = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    const runs = Object.values(wf.jobs).flatMap((job) => job.steps.map((s) => s.run).filter((r): r is string => r !== undefined));
    const ciRun = readFileSync(`${ROOT}/.ci/run`, 'utf8');
    for (const script of ['typecheck', 'lint', 'knip', 'layers']) {
      expect(scripts[script]).toBeDefined();
      expect(ciRun).toContain(`npm run ${script}`);
      expect(runs).toContain(`npm run ${script}`);
    }
    expect(runs).toContain('npm test');
    // The layer rule is dependency-cruiser's, with the project's rules (test/repo/layers.test.ts plants a violation of each).
    expect(scripts.layers).toContain('--config .dependency-cruiser.mjs');
  });
});

describe('the release workflow (test/adoption/release-workflow.test.ts runs its steps)', () => {
  const wf = load('.github/workflows/release.yml');
  const job = wf.jobs.release!;
  const changesets = job.steps.find((s) => s.uses?.startsWith('changesets/action@'))!;

  it('runs on pushes to main, one at a time, in changelog-sync\'s own repository only', () => {
    expect(wf.on).toEqual({ push: { branches: ['main'] } });
    expect(wf.concurrency?.['cancel-in-progress']).toBe(false);
    expect(job.if).toBe("${{ github.repository == 'changelog-sync/changelog-sync' }}");
  });

  it('publishes with trusted publishing and provenance: an OIDC token, no npm token', () => {
    expect(wf.permissions).toEqual({});
    expect(job.permissions).toEqual({ contents: 'write', 'pull-requests': 'write', 'id-token': 'write' });
    expect(changesets.env).toEqual({ GITHUB_TOKEN: '${{ secrets.GITHUB_TOKEN }}', NPM_CONFIG_PROVENANCE: 'true' });
    expect(readFileSync(`${ROOT}/.github/workflows/release.yml`, 'utf8')).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN|registry-url/);
  });

  it("versions and publishes through package.json's scripts, with the changesets CLI of the lock file", () => {
    const scripts = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(changesets.with).toMatchObject({ version: 'npm run version-packages', publish: 'npm run release' });
    expect(scripts['version-packages']).toMatch(/^changeset version && npm install --package-lock-only\b/);
    expect(scripts.release).toMatch(/^npm run build --silent && changeset publish$/);
  });
});
