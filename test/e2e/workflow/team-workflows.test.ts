// The team's scheduled workflow as init writes it (src/cli/team/changelog.yml), calling
// changelog-sync's reusable .github/workflows/sync.yml, run by the tests' workflow runner as
// GitHub runs a called workflow (inputs, `secrets: inherit`, the calling job's permissions):
// the keep-alive job's request against a loopback fake of the Actions REST API (GITHUB_API_URL,
// which Actions sets), and its warning when the request is refused; the missing-secret
// annotation through the call; a workflow and a CLI of different major versions; a calling
// job that grants less than the called jobs ask for.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from '../../helpers/process/cli.js';
import { git, GIT_ENV, runWorkflow, stepNamed, teamWorkflow, type WorkflowWorld } from '../../helpers/process/workflow-runner.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** A fake of the GitHub REST API on a loopback port: records each request, answers `status`. */
interface FakeApi {
  url: string;
  requests: Array<{ method: string; path: string; headers: IncomingHttpHeaders }>;
  status: number;
  server: Server;
}

let api: FakeApi;
beforeAll(async () => {
  const fake: FakeApi = { url: '', requests: [], status: 204, server: createServer() };
  fake.server.on('request', (req, res) => {
    fake.requests.push({ method: req.method!, path: req.url!, headers: req.headers });
    res.writeHead(fake.status, { 'content-type': 'application/json' }).end(fake.status === 204 ? undefined : '{"message":"Resource not accessible by integration"}');
  });
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  const address = fake.server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  api = fake;
});
afterAll(() => new Promise<void>((resolve) => api.server.close(() => resolve())));

describe("the team's scheduled workflow, calling the tool's", () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  /** origin with one commit made `daysAgo` days ago; the world of a scheduled run of the team's workflow. */
  let worlds = 0;
  function world(daysAgo = 0, extra: Partial<WorkflowWorld> = {}): WorkflowWorld {
    const root = join(dir, `world-${++worlds}`);
    mkdirSync(join(root, 'work'), { recursive: true });
    const origin = join(root, 'origin.git');
    git(root, ['init', '-q', '--bare', '-b', 'main', origin]);
    const seed = join(root, 'seed');
    git(root, ['clone', '-q', origin, seed]);
    writeFileSync(join(seed, 'package.json'), JSON.stringify({ name: 'acme-changelog', private: true, dependencies: { 'changelog-sync': '^0.1.0' } }));
    const date = new Date(Date.now() - daysAgo * 86_400_000 - 3_600_000).toISOString();
    git(seed, ['add', '-A']);
    git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.test', 'commit', '-qm', 'seed'], { ...GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    git(seed, ['push', '-q', 'origin', 'main']);
    return {
      workflow: teamWorkflow(root, 'changelog.yml'),
      origin,
      work: join(root, 'work'),
      deployed: join(root, 'pages'),
      pagesBaseUrl: 'https://acme.github.io/changelog',
      event: 'schedule',
      repository: 'acme/changelog',
      apiUrl: api.url,
      vars: { CHANGELOG_BASE_URL: 'http://127.0.0.1:9' },
      secrets: { CHANGELOG_TOKEN: 'the-token' },
      env: GIT_ENV,
      ...extra,
    };
  }

  // The sync job without a secret fails at once (its first check), after counting the quiet
  // days: the keep-alive job runs all the same.
  it("a scheduled run of a repository quiet for 30 days enables the team's workflow again through the Actions API, with the job's token", async () => {
    api.requests.length = 0;
    api.status = 204;
    const runs = await runWorkflow(world(40, { secrets: {} }), 1, { only: ['sync', 'keep-alive'] });
    expect(runs.sync!.outputs).toMatchObject({ quiet_days: '40', keep_alive: 'true' });
    const job = runs['keep-alive']!;
    expect(job.result, job.log).toBe('success');
    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect(request).toMatchObject({ method: 'PUT', path: '/repos/acme/changelog/actions/workflows/changelog.yml/enable' });
    expect(request!.headers).toMatchObject({ authorization: 'Bearer ghs_the-job-token', accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
    expect(job.log).toContain('changelog.yml enabled again (HTTP 204)');
    expect(job.log).not.toContain('::warning');
  });

  it('refused (no actions: write), it warns in the job summary with the age of the last commit, and the run goes on', async () => {
    api.requests.length = 0;
    api.status = 403;
    const runs = await runWorkflow(world(50, { secrets: {} }), 2, { only: ['sync', 'keep-alive'] });
    const job = runs['keep-alive']!;
    expect(job.result, job.log).toBe('success');
    expect(api.requests).toHaveLength(1);
    const summary = readFileSync(job.summary, 'utf8');
    expect(summary).toContain('### Warning: the schedule of changelog.yml could not be kept enabled (HTTP 403 from the enable endpoint): give the job that calls changelog-sync\'s workflow `actions: write`. The last commit is 50 days old');
    expect(job.log).toMatch(/^::warning title=changelog-sync's schedule may stop::/m);
  });

  it('not before 30 quiet days, only on the schedule, and not when the call turns it off: no request', async () => {
    api.requests.length = 0;
    api.status = 204;
    const recent = await runWorkflow(world(29, { secrets: {} }), 3, { only: ['sync', 'keep-alive'] });
    expect(recent.sync!.outputs.keep_alive).toBe('false');
    expect(recent['keep-alive']!.result).toBe('skipped');
    const manual = await runWorkflow(world(50, { secrets: {}, event: 'workflow_dispatch' }), 4, { only: ['sync', 'keep-alive'] });
    expect(manual['keep-alive']!.result).toBe('skipped');
    // A private repository (never disabled) may turn it off: `keep-alive: false` in its call.
    const off = world(50, { secrets: {} });
    writeFileSync(off.workflow, readFileSync(off.workflow, 'utf8').replace('      output-dir: _site\n', '      output-dir: _site\n      keep-alive: false\n'));
    expect((await runWorkflow(off, 5, { only: ['sync', 'keep-alive'] }))['keep-alive']!.result).toBe('skipped');
    expect(api.requests).toHaveLength(0);
  });

  it('without the secret (none inherited), the sync job fails at its first step, with the annotation naming it', async () => {
    const runs = await runWorkflow(world(0, { secrets: {} }), 4, { only: ['sync'] });
    const sync = runs.sync!;
    expect(sync.result).toBe('failure');
    expect(stepNamed(sync, 'Check the secret and the variable').outcome).toBe('failure');
    expect(sync.log).toMatch(/^::error title=changelog-sync is not set up::changelog-sync is not set up, missing: the repository secret CHANGELOG_TOKEN\./m);
    expect(stepNamed(sync, 'Pull and push').outcome).toBe('skipped');
  });

  it("a tool workflow of another major than the team's CLI fails the sync, saying which to update", async () => {
    const tool = join(dir, 'tool-workflows');
    mkdirSync(tool, { recursive: true });
    const text = readFileSync(join(ROOT, '.github/workflows/sync.yml'), 'utf8');
    const major = Number((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version.split('.')[0]);
    writeFileSync(join(tool, 'sync.yml'), text.replace(/CHANGELOG_SYNC_WORKFLOW_VERSION: '\d+'/, `CHANGELOG_SYNC_WORKFLOW_VERSION: '${major + 1}'`));
    const runs = await runWorkflow(world(0, { toolWorkflows: tool }), 5, { only: ['sync'] });
    const sync = runs.sync!;
    expect(sync.result).toBe('failure');
    expect(stepNamed(sync, 'Pull and push').outcome).toBe('failure');
    expect(sync.log).toMatch(new RegExp(`^::error title=changelog-sync%3A the workflow and the CLI are of different versions::changelog-sync's workflow is version ${major + 1} and the CLI .* Fix: update the CLI: \`npm install changelog-sync@\\^${major + 1}\``, 'm'));
  });

  it('a calling job that grants less than the called jobs ask for is refused before anything runs, as GitHub refuses it', async () => {
    api.requests.length = 0;
    const w = world();
    writeFileSync(w.workflow, readFileSync(w.workflow, 'utf8').replace(/^\s+actions: write.*\n/m, ''));
    await expect(runWorkflow(w, 6)).rejects.toThrow("the nested job 'keep-alive' is requesting 'actions: write', but is only allowed 'actions: none'");
    expect(api.requests).toHaveLength(0);
  });
});
