// Runs the jobs of a GitHub Actions workflow file as the runner would, on this machine: each
// job in a fresh clone of a bare "origin", its `run` scripts through bash (-e, pipefail) with
// $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and $RUNNER_TEMP, its `if:` and `${{ }}` expressions
// evaluated, and the few actions the changelog workflows use stood in for (checkout: a clone
// with changelog-sync installed as `npm ci` installs a bin; configure-pages: the site's URL;
// upload-pages-artifact and deploy-pages: a copy of the built site into the folder a static
// server serves; cache/restore and cache/save: a folder that outlives the job's clone (the
// request ledger); setup-node, cache and `npm ci`: nothing). An expression that names a context
// or a `github.` field the harness does not give, an unknown function or an action without a
// stand-in fails the test by name, so that a changed workflow is never run half-understood. A
// test may give stand-ins of its own (WorkflowWorld's `actions`), as the release workflow's does.
// Scripts run as child processes (asynchronously), so that an emulator and a static server in
// the test's own process keep answering.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CLI } from './cli.js';

type Step = { id?: string; name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown>; 'continue-on-error'?: boolean };
type Job = { needs?: string | string[]; if?: string; env?: Record<string, string>; outputs?: Record<string, string>; steps: Step[] };

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
  /** The workflow file. */
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
  /** `github.repository` (owner/name); `acme/changelog` when not given. */
  repository?: string;
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

/** git in `cwd` with {@link GIT_ENV} (or `env`), output trimmed. */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = GIT_ENV): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Installs changelog-sync in a clone the way `npm ci` does for a package that depends on it:
 * `node_modules/changelog-sync` (this checkout) and its bin in `node_modules/.bin`.
 */
export function installTool(clone: string): void {
  mkdirSync(join(clone, 'node_modules/.bin'), { recursive: true });
  symlinkSync(join(CLI, '../..'), join(clone, 'node_modules/changelog-sync'));
  writeFileSync(join(clone, 'node_modules/.bin/changelog-sync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(clone, 'node_modules/.bin/changelog-sync'), 0o755);
}

/** The first step of a job whose name starts with `prefix` (fails the test when there is none). */
export function stepNamed(job: JobRun, prefix: string): StepRun {
  const step = Object.values(job.steps).find((s) => s.name.startsWith(prefix));
  if (!step) throw new Error(`no step named "${prefix}..." in the job`);
  return step;
}

/**
 * Runs the jobs of the workflow in the order of their `needs`, as one run (`runId`): every
 * job, or those of `only` (the others count as skipped).
 */
export async function runWorkflow(world: WorkflowWorld, runId: number, options: { only?: string[] } = {}): Promise<Record<string, JobRun>> {
  const wf = parseYaml(readFileSync(world.workflow, 'utf8')) as { jobs: Record<string, Job> };
  const runs: Record<string, JobRun> = {};
  const pending = Object.keys(wf.jobs);
  while (pending.length > 0) {
    const next = pending.findIndex((name) => needsOf(wf.jobs[name]!).every((n) => runs[n]));
    if (next < 0) throw new Error(`the needs of ${pending.join(', ')} cannot be met`);
    const [name] = pending.splice(next, 1);
    runs[name!] = options.only && !options.only.includes(name!) ? skippedJob(world, name!, runId) : await runJob(world, name!, wf.jobs[name!]!, runs, runId);
  }
  return runs;
}

const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);

const skippedJob = (world: WorkflowWorld, name: string, runId: number): JobRun => ({ result: 'skipped', outputs: {}, steps: {}, log: '', dir: join(world.work, `${name}-${runId}`), summary: join(world.work, `${name}-${runId}-summary.md`) });

async function runJob(world: WorkflowWorld, name: string, job: Job, runs: Record<string, JobRun>, runId: number): Promise<JobRun> {
  const needs = Object.fromEntries(needsOf(job).map((n) => [n, { result: runs[n]!.result, outputs: runs[n]!.outputs }]));
  const run: JobRun = { ...skippedJob(world, name, runId), result: 'success' };
  const scope = (failed: boolean): Scope => ({
    contexts: {
      github: { event_name: world.event, ref_name: 'main', run_id: String(runId), run_attempt: '1', repository: world.repository ?? 'acme/changelog' },
      runner: { os: 'Linux' },
      vars: world.vars,
      secrets: world.secrets,
      needs,
      steps: run.steps,
    },
    failed,
  });
  const needsOk = Object.values(needs).every((n) => n.result === 'success');
  if (!condition(job.if, scope(!needsOk))) return { ...run, result: 'skipped' };
  const temp = join(world.work, `${name}-${runId}-temp`);
  mkdirSync(temp, { recursive: true });
  let failed = false;
  for (const [i, step] of job.steps.entries()) {
    const id = step.id ?? `step-${i}`;
    const stepName = step.name ?? step.uses ?? step.run ?? '?';
    if (!condition(step.if, scope(failed))) {
      run.steps[id] = { name: stepName, outcome: 'skipped', outputs: {}, log: '' };
      continue;
    }
    const env = { ...interpolateAll(job.env, scope(failed)), ...interpolateAll(step.env, scope(failed)), RUNNER_TEMP: temp };
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
    git(world.work, ['clone', '-q', '--branch', withs.ref || 'main', world.origin, run.dir], world.env);
    installTool(run.dir);
    return done(true);
  }
  if (uses === 'actions/setup-node' || uses === 'actions/cache') return done(true);
  if (uses === 'actions/cache/restore' || uses === 'actions/cache/save') {
    // The request ledger's cache: a folder that outlives each job's clone, newest save wins
    // (the workflow restores by key prefix, newest first).
    const file = join(run.dir, withs.path!);
    const cached = join(world.work, 'actions-cache', withs.path!);
    const [from, to] = uses === 'actions/cache/restore' ? [cached, file] : [file, cached];
    if (existsSync(from)) {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
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

/** The contexts an expression reads, and whether an earlier step (or a needed job) failed. */
interface Scope {
  contexts: { github: Record<string, string>; runner: Record<string, string>; vars: Record<string, string>; secrets: Record<string, string>; needs: Record<string, unknown>; steps: Record<string, unknown> };
  failed: boolean;
}

/** An `if:` (with or without `${{ }}`): GitHub adds `success() &&` when it names no status function. */
function condition(expr: string | undefined, scope: Scope): boolean {
  const text = (expr ?? '').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1').trim();
  if (text === '') return !scope.failed;
  const value = evaluate(text, scope);
  return /\b(?:always|cancelled|success|failure)\(\)/.test(text) ? Boolean(value) : !scope.failed && Boolean(value);
}

function interpolateAll(values: Record<string, string> | undefined, scope: Scope): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, interpolate(String(v), scope)]));
}

/** `${{ expr }}` in a string replaced by its value. */
function interpolate(text: string, scope: Scope): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expr: string) => {
    const v = evaluate(expr.trim(), scope);
    return typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? String(v) : '';
  });
}

const TOKEN = /\s*(?:'((?:[^']|'')*)'|(&&|\|\||==|!=|!|\(|\))|([A-Za-z_][\w-]*(?:\.[\w-]+)*)(\(\))?)/y;

type Token = { kind: 'string'; value: string } | { kind: 'op'; value: string } | { kind: 'path'; value: string } | { kind: 'call'; value: string };

/** The tokens of an expression. */
function tokens(expr: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (expr.slice(TOKEN.lastIndex).trim() !== '') {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`cannot read the expression ${JSON.stringify(expr)} at ${at}`);
    if (m[1] !== undefined) out.push({ kind: 'string', value: m[1].replace(/''/g, "'") });
    else if (m[2] !== undefined) out.push({ kind: 'op', value: m[2] });
    else if (m[4] !== undefined) out.push({ kind: 'call', value: m[3]! });
    else out.push({ kind: 'path', value: m[3]! });
  }
  return out;
}

/**
 * The value of a property path: a context the harness does not give, or a field of `github`
 * or `runner` it does not set, fails the test by name; a missing variable, secret, step or
 * output is '' (as on GitHub).
 */
function lookup(path: string, scope: Scope): unknown {
  if (path === 'true' || path === 'false') return path === 'true';
  const [context, ...keys] = path.split('.');
  if (!Object.hasOwn(scope.contexts, context!)) throw new Error(`the test harness does not know the context of ${path}`);
  let v: unknown = scope.contexts[context as keyof Scope['contexts']];
  if ((context === 'github' || context === 'runner') && !(keys[0]! in (v as object))) throw new Error(`the test harness does not set ${path}`);
  for (const k of keys) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v ?? '';
}

/**
 * The expressions the workflow uses, by recursive descent: string literals, `true`/`false`,
 * property paths, `==`, `!=`, `!`, `&&`, `||` (which return an operand, as GitHub's do),
 * parentheses, and always(), cancelled(), success(), failure().
 */
function evaluate(expr: string, scope: Scope): unknown {
  const ts = tokens(expr);
  let i = 0;
  const peek = (v: string) => ts[i]?.kind === 'op' && ts[i]!.value === v;
  const call = (name: string): boolean => {
    if (name === 'always') return true;
    if (name === 'cancelled') return false;
    if (name === 'success') return !scope.failed;
    if (name === 'failure') return scope.failed;
    throw new Error(`the test harness knows no function ${name}()`);
  };
  const primary = (): unknown => {
    const t = ts[i++];
    if (!t) throw new Error(`the expression ${JSON.stringify(expr)} ends early`);
    if (t.kind === 'string') return t.value;
    if (t.kind === 'path') return lookup(t.value, scope);
    if (t.kind === 'call') return call(t.value);
    if (t.value === '!') return !primary();
    if (t.value === '(') {
      const v = or();
      if (!peek(')')) throw new Error(`a ( without ) in ${JSON.stringify(expr)}`);
      i++;
      return v;
    }
    throw new Error(`unexpected ${t.value} in ${JSON.stringify(expr)}`);
  };
  const equality = (): unknown => {
    let v = primary();
    while (peek('==') || peek('!=')) {
      const op = ts[i++]!.value;
      const w = primary();
      v = op === '==' ? v === w : v !== w;
    }
    return v;
  };
  const and = (): unknown => {
    let v = equality();
    while (peek('&&')) {
      i++;
      const w = equality();
      v = v ? w : v;
    }
    return v;
  };
  const or = (): unknown => {
    let v = and();
    while (peek('||')) {
      i++;
      const w = and();
      v = v ? v : w;
    }
    return v;
  };
  const value = or();
  if (i !== ts.length) throw new Error(`cannot read the end of ${JSON.stringify(expr)}`);
  return value;
}
