// Runs the jobs of a GitHub Actions workflow file as the runner would, on this machine: each
// job in a fresh clone of a bare "origin", its `run` scripts through bash (-e, pipefail) with
// $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY, $RUNNER_TEMP and the runner's GITHUB_* variables, its
// `if:` and `${{ }}` expressions evaluated (workflow-expressions.ts), and the few actions the
// changelog workflows use stood in for (checkout: a clone with changelog-sync installed as
// `npm ci` installs a bin; configure-pages: the site's URL; upload-pages-artifact and
// deploy-pages: a copy of the built site into the folder a static server serves;
// cache/restore and cache/save: a folder that outlives the job's clone (the request ledger);
// setup-node, cache and `npm ci`: nothing). A team's workflow calls changelog-sync's reusable
// ones (`uses: <package.json's repository>/.github/workflows/<file>@<ref>`): such a job runs
// this checkout's file as GitHub runs a called workflow: its declared `inputs` from `with:`
// (an undeclared one fails), `secrets: inherit` or the ones named, the caller's `vars` and
// `github`, its own workflow-level `env` (not the caller's), and every called job's
// `permissions` within what the calling job grants (more fails, as GitHub refuses to start
// the run). Its jobs' runs are returned by their own names. An expression that names a context
// or a `github.` field the harness does not give, an unknown function or an action without a
// stand-in fails the test by name, so that a changed workflow is never run half-understood. A
// test may give stand-ins of its own (WorkflowWorld's `actions`), as the release workflow's does.
// Scripts run as child processes (asynchronously), so that an emulator and a static server in
// the test's own process keep answering.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { RepositoryFit } from '../../../src/cli/init-fit.js';
import { fitTeamFile, githubRepository, toolWorkflows } from '../../../src/cli/team-workflows.js';
import { CLI } from './cli.js';
import { condition, interpolate, interpolateAll, type Scope } from './workflow-expressions.js';

type Step = { id?: string; name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown>; 'continue-on-error'?: boolean };
type Permissions = Record<string, string>;
type Job = {
  needs?: string | string[];
  if?: string;
  env?: Record<string, string>;
  outputs?: Record<string, string>;
  permissions?: Permissions;
  steps?: Step[];
  /** A call of a reusable workflow, with its inputs and secrets. */
  uses?: string;
  with?: Record<string, unknown>;
  secrets?: 'inherit' | Record<string, string>;
};
type Workflow = {
  on?: { workflow_call?: { inputs?: Record<string, { type?: string; default?: unknown; required?: boolean }> } } | string;
  env?: Record<string, string>;
  permissions?: Permissions;
  jobs: Record<string, Job>;
};

/** One step as it ran: `skipped` when its `if:` (or an earlier failure) left it out. */
export interface StepRun {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  /** What its script printed (stdout and stderr together). */
  log: string;
}

/** What one job did. */
export interface JobRun {
  result: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  /** Each step by id (`step-<index>` for a step without one). */
  steps: Record<string, StepRun>;
  /** Everything its scripts printed. */
  log: string;
  /** The job's clone of origin (the checkout). */
  dir: string;
  /** The job's $GITHUB_STEP_SUMMARY. */
  summary: string;
}

/** Where and with what a workflow runs. */
export interface WorkflowWorld {
  /** The workflow file: the team's (calling changelog-sync's) or one of changelog-sync's own. */
  workflow: string;
  /** A bare repository with branch `main`. */
  origin: string;
  /** A scratch folder for the job clones, artifacts, the actions cache and the runner's files. */
  work: string;
  /** The folder the "deployed" site is copied into (served by a static server). */
  deployed: string;
  /** What actions/configure-pages answers as `base_url` (no trailing slash, as it does). */
  pagesBaseUrl: string;
  event: string;
  vars: Record<string, string>;
  secrets: Record<string, string>;
  /** Environment of every script (PATH and the like, see {@link GIT_ENV}); GITHUB_* are set here. */
  env: NodeJS.ProcessEnv;
  /** The branch a checkout without `ref:` takes (a pull request's head): `main` by default. */
  ref?: string;
  /** The event's payload (`github.event`): `{}` by default. */
  payload?: Record<string, unknown>;
  /** `owner/name` of the team's repository: `acme/changelog` by default. */
  repository?: string;
  /** The API the runner names in GITHUB_API_URL: a port nothing listens on by default. */
  apiUrl?: string;
  /** Where a called changelog-sync workflow is read from: this checkout's `.github/workflows/` by default. */
  toolWorkflows?: string;
  /** Stand-ins a test gives for actions, by `owner/name` (without `@ref`): for an action the
   *  harness has none of, or instead of the harness's own (the release workflow's checkout). */
  actions?: Record<string, ActionStandIn>;
}

/** What a test's stand-in for an action is given: the job's clone (`dir`, made by the checkout's
 *  stand-in), the step's `with:` and `env:` (expressions evaluated); it answers as a step does. */
export type ActionStandIn = (step: { dir: string; with: Record<string, string>; env: Record<string, string> }) => Promise<{ ok: boolean; outputs?: Record<string, string>; log?: string }>;

/** The environment without git's global and system configuration, and with none of the caller's CHANGELOG_* or GITHUB_*. */
export const GIT_ENV: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
for (const k of Object.keys(GIT_ENV)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete GIT_ENV[k];

/** This checkout: changelog-sync's repository. */
const TOOL_ROOT = join(CLI, '../..');
/** `owner/name` of changelog-sync's repository (package.json's `repository`), which a team's `uses:` names. */
const TOOL_REPOSITORY = githubRepository((JSON.parse(readFileSync(join(TOOL_ROOT, 'package.json'), 'utf8')) as { repository?: unknown }).repository)!;

/** git in `cwd` with {@link GIT_ENV} (or `env`), output trimmed. */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Installs changelog-sync in a clone the way `npm ci` does for a package that depends on it:
 * `node_modules/changelog-sync` (this checkout) and its bin in `node_modules/.bin`.
 */
function installTool(clone: string): void {
  mkdirSync(join(clone, 'node_modules/.bin'), { recursive: true });
  symlinkSync(TOOL_ROOT, join(clone, 'node_modules/changelog-sync'));
  writeFileSync(join(clone, 'node_modules/.bin/changelog-sync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(clone, 'node_modules/.bin/changelog-sync'), 0o755);
}

/** The folders and branch of a team's repository as `init` finds them by default. */
const DEFAULT_FIT: RepositoryFit = { branch: 'main', branchSource: 'default', contentDir: 'content', stateDir: '.changelog', outputDir: '_site' };

/**
 * A team's workflow as `changelog-sync init` writes it (`src/cli/team/<name>`, fitted to the
 * repository and calling this checkout's workflows), written into `dir`; returns its path.
 */
export function teamWorkflow(dir: string, name: 'changelog.yml' | 'changelog-check.yml', fit: Partial<RepositoryFit> = {}): string {
  const template = `src/cli/team/${name}`;
  const path = join(dir, name);
  writeFileSync(path, fitTeamFile(template, readFileSync(join(TOOL_ROOT, template), 'utf8'), { ...DEFAULT_FIT, ...fit }, toolWorkflows(TOOL_ROOT)));
  return path;
}

/** The first step of a job whose name starts with `prefix` (fails the test when there is none). */
export function stepNamed(job: JobRun, prefix: string): StepRun {
  const step = Object.values(job.steps).find((s) => s.name.startsWith(prefix));
  if (!step) throw new Error(`no step named "${prefix}..." in the job`);
  return step;
}

/** What a workflow's jobs see of the workflow they are in: the called workflow's inputs and secrets, its env. */
interface Frame {
  inputs: Record<string, unknown>;
  secrets: Record<string, string>;
  env: Record<string, string>;
}

/**
 * Runs the jobs of the workflow in the order of their `needs`, as one run (`runId`): every
 * job, or those of `only` (the others count as skipped). A job that calls changelog-sync's
 * reusable workflow runs that workflow's jobs, returned by their own names (and the calling
 * job by its name, failed when one of them failed).
 */
export async function runWorkflow(world: WorkflowWorld, runId: number, options: { only?: string[] } = {}): Promise<Record<string, JobRun>> {
  const wf = parseYaml(readFileSync(world.workflow, 'utf8')) as Workflow;
  const runs: Record<string, JobRun> = {};
  await runJobs(world, wf, { inputs: {}, secrets: world.secrets, env: wf.env ?? {} }, runs, runId, options.only);
  return runs;
}

async function runJobs(world: WorkflowWorld, wf: Workflow, frame: Frame, runs: Record<string, JobRun>, runId: number, only: string[] | undefined): Promise<void> {
  const own: Record<string, JobRun> = {};
  const pending = Object.keys(wf.jobs);
  while (pending.length > 0) {
    const next = pending.findIndex((name) => needsOf(wf.jobs[name]!).every((n) => own[n]));
    if (next < 0) throw new Error(`the needs of ${pending.join(', ')} cannot be met`);
    const name = pending.splice(next, 1)[0]!;
    const job = wf.jobs[name]!;
    if (runs[name]) throw new Error(`two jobs named ${name}: the harness returns jobs by name`);
    if (job.uses !== undefined) {
      own[name] = await callWorkflow(world, name, job, wf, frame, runs, own, runId, only);
      // A called job of the same name (GitHub shows it as "check / check") is the one returned.
      runs[name] ??= own[name];
    } else {
      own[name] = only && !only.includes(name) ? skippedJob(world, name, runId) : await runJob(world, name, job, frame, own, runId);
      runs[name] = own[name];
    }
  }
}

const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);

const skippedJob = (world: WorkflowWorld, name: string, runId: number): JobRun => ({ result: 'skipped', outputs: {}, steps: {}, log: '', dir: join(world.work, `${name}-${runId}`), summary: join(world.work, `${name}-${runId}-summary.md`) });

const LEVEL: Record<string, number> = { none: 0, read: 1, write: 2 };

/**
 * A job that calls a reusable workflow: changelog-sync's, at any ref, read from this
 * checkout. Its inputs, secrets and permissions are checked as GitHub checks them before the
 * run starts.
 */
async function callWorkflow(world: WorkflowWorld, name: string, job: Job, caller: Workflow, frame: Frame, runs: Record<string, JobRun>, own: Record<string, JobRun>, runId: number, only: string[] | undefined): Promise<JobRun> {
  const m = /^([\w.-]+\/[\w.-]+)\/\.github\/workflows\/([\w.-]+\.ya?ml)@(\S+)$/.exec(job.uses!);
  if (!m || m[1] !== TOOL_REPOSITORY) throw new Error(`the test harness has no stand-in for the workflow ${job.uses} (only ${TOOL_REPOSITORY}'s)`);
  const called = parseYaml(readFileSync(join(world.toolWorkflows ?? join(TOOL_ROOT, '.github/workflows'), m[2]!), 'utf8')) as Workflow;
  const declared = typeof called.on === 'object' ? called.on.workflow_call : undefined;
  if (!declared) throw new Error(`${m[2]} has no on.workflow_call: it cannot be called`);
  const scope = callerScope(world, frame, own, job, runId);
  const inputs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(job.with ?? {})) {
    const spec = declared.inputs?.[key];
    if (!spec) throw new Error(`${name}: ${m[2]} has no input ${key}`);
    const text = interpolate(String(value), scope);
    inputs[key] = spec.type === 'boolean' ? text === 'true' : spec.type === 'number' ? Number(text) : text;
  }
  for (const [key, spec] of Object.entries(declared.inputs ?? {})) {
    if (!(key in inputs)) {
      if (spec.required) throw new Error(`${name}: the required input ${key} of ${m[2]} is not given`);
      inputs[key] = spec.default ?? '';
    }
  }
  const secrets = job.secrets === 'inherit' ? world.secrets : interpolateAll(job.secrets, scope);
  // The calling job's grant (or its workflow's): no called job may ask for more.
  const granted = job.permissions ?? caller.permissions ?? {};
  for (const [calledName, calledJob] of Object.entries(called.jobs)) {
    for (const [scopeName, level] of Object.entries(calledJob.permissions ?? called.permissions ?? {})) {
      if ((LEVEL[level] ?? 0) > (LEVEL[granted[scopeName] ?? 'none'] ?? 0)) {
        throw new Error(`${name}: the nested job '${calledName}' is requesting '${scopeName}: ${level}', but is only allowed '${scopeName}: ${granted[scopeName] ?? 'none'}'`);
      }
    }
  }
  const before = new Set(Object.keys(runs));
  if (condition(job.if, scope)) await runJobs(world, called, { inputs, secrets, env: called.env ?? {} }, runs, runId, only);
  const inner = Object.keys(runs).filter((k) => !before.has(k)).map((k) => runs[k]!);
  const result = inner.length === 0 ? 'skipped' : inner.some((r) => r.result === 'failure') ? 'failure' : 'success';
  return { ...skippedJob(world, name, runId), result };
}

/** The scope of a job's expressions: the contexts of the run, its frame, its needs. */
function jobScope(world: WorkflowWorld, frame: Frame, runId: number, needs: Record<string, unknown>, steps: Record<string, unknown>, failed: boolean): Scope {
  return {
    contexts: {
      github: {
        event_name: world.event,
        event: world.payload ?? {},
        ref_name: 'main',
        run_id: String(runId),
        run_attempt: '1',
        repository: world.repository ?? 'acme/changelog',
        repository_owner: (world.repository ?? 'acme/changelog').split('/')[0],
        token: 'ghs_the-job-token',
      },
      runner: { os: 'Linux' },
      vars: world.vars,
      secrets: frame.secrets,
      inputs: frame.inputs,
      needs,
      steps,
    },
    failed,
  };
}

function callerScope(world: WorkflowWorld, frame: Frame, own: Record<string, JobRun>, job: Job, runId: number): Scope {
  const needs = Object.fromEntries(needsOf(job).map((n) => [n, { result: own[n]!.result, outputs: own[n]!.outputs }]));
  return jobScope(world, frame, runId, needs, {}, !Object.values(needs).every((n) => n.result === 'success'));
}

async function runJob(world: WorkflowWorld, name: string, job: Job, frame: Frame, own: Record<string, JobRun>, runId: number): Promise<JobRun> {
  const needs = Object.fromEntries(needsOf(job).map((n) => [n, { result: own[n]!.result, outputs: own[n]!.outputs }]));
  const run: JobRun = { ...skippedJob(world, name, runId), result: 'success' };
  const scope = (failed: boolean): Scope => jobScope(world, frame, runId, needs, run.steps, failed);
  const needsOk = Object.values(needs).every((n) => n.result === 'success');
  if (!condition(job.if, scope(!needsOk))) return { ...run, result: 'skipped' };
  const temp = join(world.work, `${name}-${runId}-temp`);
  mkdirSync(temp, { recursive: true });
  // The workspace exists before any step, checked out or not (a checkout clones into it, empty).
  mkdirSync(run.dir, { recursive: true });
  const repository = world.repository ?? 'acme/changelog';
  const runnerEnv = {
    GITHUB_REPOSITORY: repository,
    GITHUB_API_URL: world.apiUrl ?? 'http://127.0.0.1:9',
    GITHUB_EVENT_NAME: world.event,
    GITHUB_REF_NAME: 'main',
    // The top-level workflow's, in a called workflow too.
    GITHUB_WORKFLOW_REF: `${repository}/.github/workflows/${basename(world.workflow)}@refs/heads/main`,
  };
  let failed = false;
  for (const [i, step] of (job.steps ?? []).entries()) {
    const id = step.id ?? `step-${i}`;
    const stepName = step.name ?? step.uses ?? step.run ?? '?';
    if (!condition(step.if, scope(failed))) {
      run.steps[id] = { name: stepName, outcome: 'skipped', outputs: {}, log: '' };
      continue;
    }
    const env = { ...runnerEnv, ...interpolateAll(frame.env, scope(failed)), ...interpolateAll(job.env, scope(failed)), ...interpolateAll(step.env, scope(failed)), RUNNER_TEMP: temp };
    const withs = interpolateAll(step.with as Record<string, string> | undefined, scope(failed));
    const out = await runStep(world, run, step, env, withs);
    run.steps[id] = { name: stepName, outcome: out.ok ? 'success' : 'failure', outputs: out.outputs, log: out.log };
    run.log += out.log;
    if (!out.ok && !step['continue-on-error']) failed = true;
  }
  run.result = failed ? 'failure' : 'success';
  for (const [k, v] of Object.entries(job.outputs ?? {})) run.outputs[k] = interpolate(v, scope(failed));
  return run;
}

async function runStep(world: WorkflowWorld, run: JobRun, step: Step, env: Record<string, string>, withs: Record<string, string>): Promise<{ ok: boolean; outputs: Record<string, string>; log: string }> {
  const uses = step.uses?.replace(/@.*$/, '');
  const artifacts = join(world.work, 'artifacts');
  const done = (ok: boolean, outputs: Record<string, string> = {}) => ({ ok, outputs, log: '' });
  const standIn = uses === undefined ? undefined : world.actions?.[uses];
  if (standIn) {
    const out = await standIn({ dir: run.dir, with: withs, env });
    return { ok: out.ok, outputs: out.outputs ?? {}, log: out.log ?? '' };
  }
  if (uses === 'actions/checkout') {
    git(world.work, ['clone', '-q', '--branch', withs.ref || world.ref || 'main', world.origin, run.dir], world.env);
    installTool(run.dir);
    return done(true);
  }
  if (uses === 'actions/setup-node' || uses === 'actions/cache') return done(true);
  if (uses === 'actions/cache/restore' || uses === 'actions/cache/save') {
    // The request ledger's cache: a folder that outlives each job's clone, newest save wins
    // (the workflow restores by key prefix, newest first). One path a line; a `*` stands for
    // one folder level.
    const restore = uses === 'actions/cache/restore';
    for (const pattern of withs.path!.split('\n').map((l) => l.trim()).filter(Boolean)) {
      for (const path of expandStar(restore ? join(world.work, 'actions-cache') : run.dir, pattern)) {
        const file = join(run.dir, path);
        const cached = join(world.work, 'actions-cache', path);
        const [from, to] = restore ? [cached, file] : [file, cached];
        if (existsSync(from)) {
          mkdirSync(dirname(to), { recursive: true });
          copyFileSync(from, to);
        }
      }
    }
    return done(true);
  }
  if (uses === 'actions/configure-pages') return done(true, { base_url: world.pagesBaseUrl, base_path: new URL(world.pagesBaseUrl).pathname });
  if (uses === 'actions/upload-pages-artifact') {
    const target = join(artifacts, withs.name || 'github-pages');
    rmSync(target, { recursive: true, force: true });
    cpSync(join(run.dir, withs.path!), target, { recursive: true });
    return done(true);
  }
  if (uses === 'actions/deploy-pages') {
    const source = join(artifacts, withs.artifact_name || 'github-pages');
    if (!existsSync(source)) return done(false);
    rmSync(world.deployed, { recursive: true, force: true });
    cpSync(source, world.deployed, { recursive: true });
    return done(true, { page_url: `${world.pagesBaseUrl}/` });
  }
  if (uses !== undefined) throw new Error(`the test harness has no stand-in for the action ${step.uses}`);
  if (/^npm ci\b/.test(step.run!.trim())) return done(true);
  const outputFile = join(world.work, `output-${Math.random().toString(36).slice(2)}`);
  writeFileSync(outputFile, '');
  let log = '';
  const code = await bash(step.run!, run.dir, { ...world.env, ...env, GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: run.summary, npm_config_offline: 'true', NO_COLOR: '1' }, (t) => (log += t));
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { ok: code === 0, outputs, log };
}

/** The paths under `root` a cache path names: itself, or with its one `*` segment each folder there. */
function expandStar(root: string, pattern: string): string[] {
  const star = pattern.indexOf('/*/');
  if (star < 0) return [pattern];
  const parent = pattern.slice(0, star);
  const dirs = existsSync(join(root, parent)) ? readdirSync(join(root, parent), { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
  return dirs.map((d) => `${parent}/${d.name}${pattern.slice(star + 2)}`);
}

/** A script as the runner runs a `run:` step (bash -e, pipefail). */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, log: (text: string) => void): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => log(d.toString()));
    child.stderr.on('data', (d: Buffer) => log(d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

