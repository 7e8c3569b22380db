// Runs the jobs of a GitHub Actions workflow file as the runner would, on this machine: each
// job in a fresh clone of a bare "origin", its `run` scripts through bash with
// $GITHUB_OUTPUT, its `if:` and `${{ }}` expressions evaluated, and the few actions the
// changelog workflow uses stood in for (checkout: a clone; configure-pages: the site's URL;
// upload-pages-artifact and deploy-pages: a copy of the built site into the folder a static
// server serves; cache/restore and cache/save: a folder that outlives the job's clone (the
// request ledger); setup-node, cache and `npm ci`: nothing, the clone has changelog-sync
// installed as npm installs a bin). Scripts run as child processes (asynchronously), so
// that an emulator and a static server in the test's own process keep answering.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CLI } from './cli.js';

type Step = { id?: string; name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, unknown>; 'continue-on-error'?: boolean };
type Job = { needs?: string | string[]; if?: string; env?: Record<string, string>; outputs?: Record<string, string>; steps: Step[] };

/** What one job did. */
export interface JobRun {
  result: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  /** Each step by id: its outcome and outputs. */
  steps: Record<string, { outcome: string; outputs: Record<string, string> }>;
  /** Everything its scripts printed. */
  log: string;
}

/** Where and with what a workflow runs. */
export interface WorkflowWorld {
  /** The workflow file. */
  workflow: string;
  /** A bare repository with branch `main`. */
  origin: string;
  /** A scratch folder for the job clones and artifacts. */
  work: string;
  /** The folder the "deployed" site is copied into (served by a static server). */
  deployed: string;
  /** What actions/configure-pages answers as `base_url` (no trailing slash, as it does). */
  pagesBaseUrl: string;
  event: string;
  vars: Record<string, string>;
  secrets: Record<string, string>;
  /** Environment of every script (PATH and the like); GITHUB_* are set here. */
  env: NodeJS.ProcessEnv;
}

/** git with the test's own configuration only. */
function git(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Runs every job of the workflow in the order of its `needs`, as one run. */
export async function runWorkflow(world: WorkflowWorld, runId: number): Promise<Record<string, JobRun>> {
  const wf = parseYaml(readFileSync(world.workflow, 'utf8')) as { jobs: Record<string, Job> };
  const runs: Record<string, JobRun> = {};
  const pending = Object.keys(wf.jobs);
  while (pending.length > 0) {
    const next = pending.findIndex((name) => needsOf(wf.jobs[name]!).every((n) => runs[n]));
    if (next < 0) throw new Error(`the needs of ${pending.join(', ')} cannot be met`);
    const [name] = pending.splice(next, 1);
    runs[name!] = await runJob(world, name!, wf.jobs[name!]!, runs, runId);
  }
  return runs;
}

const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);

async function runJob(world: WorkflowWorld, name: string, job: Job, runs: Record<string, JobRun>, runId: number): Promise<JobRun> {
  const needs = Object.fromEntries(needsOf(job).map((n) => [n, { result: runs[n]!.result, outputs: runs[n]!.outputs }]));
  const run: JobRun = { result: 'success', outputs: {}, steps: {}, log: '' };
  const scope = (failed: boolean) => ({
    github: { event_name: world.event, ref_name: 'main', run_id: String(runId), run_attempt: '1' },
    runner: { os: 'Linux' },
    vars: world.vars,
    secrets: world.secrets,
    needs,
    steps: run.steps,
    failed,
  });
  const needsOk = Object.values(needs).every((n) => n.result === 'success');
  if (!condition(job.if, scope(!needsOk))) return { ...run, result: 'skipped' };
  const dir = join(world.work, `${name}-${runId}`);
  let failed = false;
  for (const [i, step] of job.steps.entries()) {
    const id = step.id ?? `step-${i}`;
    if (!condition(step.if, scope(failed))) {
      run.steps[id] = { outcome: 'skipped', outputs: {} };
      continue;
    }
    const env = { ...interpolateAll(job.env, scope(failed)), ...interpolateAll(step.env, scope(failed)) };
    const withs = interpolateAll(step.with as Record<string, string> | undefined, scope(failed));
    const out = await runStep(world, dir, step, env, withs, run);
    run.steps[id] = { outcome: out.ok ? 'success' : 'failure', outputs: out.outputs };
    if (!out.ok && !step['continue-on-error']) failed = true;
  }
  run.result = failed ? 'failure' : 'success';
  for (const [k, v] of Object.entries(job.outputs ?? {})) run.outputs[k] = interpolate(v, scope(failed));
  return run;
}

async function runStep(world: WorkflowWorld, dir: string, step: Step, env: Record<string, string>, withs: Record<string, string>, run: JobRun): Promise<{ ok: boolean; outputs: Record<string, string> }> {
  const uses = step.uses?.replace(/@.*$/, '');
  const artifacts = join(world.work, 'artifacts');
  if (uses === 'actions/checkout') {
    git(world.work, world.env, 'clone', '-q', '--branch', withs.ref || 'main', world.origin, dir);
    // changelog-sync installed as `npm ci` installs a bin.
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    symlinkSync(join(CLI, '../..'), join(dir, 'node_modules/changelog-sync'));
    writeFileSync(join(dir, 'node_modules/.bin/changelog-sync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(dir, 'node_modules/.bin/changelog-sync'), 0o755);
    return { ok: true, outputs: {} };
  }
  if (uses === 'actions/setup-node' || uses === 'actions/cache') return { ok: true, outputs: {} };
  if (uses === 'actions/cache/restore' || uses === 'actions/cache/save') {
    // The request ledger's cache: a folder that outlives each job's clone, newest save wins
    // (the workflow restores by key prefix, newest first).
    const file = join(dir, withs.path!);
    const cached = join(world.work, 'actions-cache', withs.path!);
    const [from, to] = uses === 'actions/cache/restore' ? [cached, file] : [file, cached];
    if (existsSync(from)) {
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    }
    return { ok: true, outputs: {} };
  }
  if (uses === 'actions/configure-pages') return { ok: true, outputs: { base_url: world.pagesBaseUrl, base_path: new URL(world.pagesBaseUrl).pathname } };
  if (uses === 'actions/upload-pages-artifact') {
    const target = join(artifacts, withs.name || 'github-pages');
    rmSync(target, { recursive: true, force: true });
    cpSync(join(dir, withs.path!), target, { recursive: true });
    return { ok: true, outputs: {} };
  }
  if (uses === 'actions/deploy-pages') {
    const source = join(artifacts, withs.artifact_name || 'github-pages');
    if (!existsSync(source)) return { ok: false, outputs: {} };
    rmSync(world.deployed, { recursive: true, force: true });
    cpSync(source, world.deployed, { recursive: true });
    return { ok: true, outputs: { page_url: `${world.pagesBaseUrl}/` } };
  }
  if (uses !== undefined) throw new Error(`no stand-in for the action ${step.uses}`);
  if (/^npm ci\b/.test(step.run!.trim())) return { ok: true, outputs: {} };
  const outputFile = join(world.work, `output-${Math.random().toString(36).slice(2)}`);
  writeFileSync(outputFile, '');
  const code = await bash(step.run!, dir, { ...world.env, ...env, GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: join(world.work, 'summary.md') }, (t) => (run.log += t));
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { ok: code === 0, outputs };
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

type Scope = Record<string, unknown>;

/** An `if:` (with or without `${{ }}`): GitHub adds `success() &&` when it names no status function. */
function condition(expr: string | undefined, scope: Scope): boolean {
  const text = (expr ?? '').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1').trim();
  if (text === '') return !(scope.failed as boolean);
  const value = evaluate(text, scope);
  return /\b(?:always|cancelled|success|failure)\(\)/.test(text) ? Boolean(value) : !(scope.failed as boolean) && Boolean(value);
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
 * The expressions the workflow uses, by recursive descent: string literals, `true`/`false`,
 * property paths, `==`, `!=`, `!`, `&&`, `||` (which return an operand, as GitHub's do),
 * parentheses, and always(), cancelled(), success(), failure(). A missing property is ''.
 */
function evaluate(expr: string, scope: Scope): unknown {
  const ts = tokens(expr);
  let i = 0;
  const peek = (v: string) => ts[i]?.kind === 'op' && ts[i]!.value === v;
  const get = (path: string): unknown => {
    if (path === 'true' || path === 'false') return path === 'true';
    let v: unknown = scope;
    for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    return v ?? '';
  };
  const call = (name: string): boolean => {
    const failed = scope.failed as boolean;
    if (name === 'always') return true;
    if (name === 'cancelled') return false;
    if (name === 'success') return !failed;
    if (name === 'failure') return failed;
    throw new Error(`no function ${name}() here`);
  };
  const primary = (): unknown => {
    const t = ts[i++];
    if (!t) throw new Error(`the expression ${JSON.stringify(expr)} ends early`);
    if (t.kind === 'string') return t.value;
    if (t.kind === 'path') return get(t.value);
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
