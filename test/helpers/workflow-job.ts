// Runs a job of a GitHub workflow file the way the runner would, on this machine: every `run:`
// step is executed by bash as written in the file, with the job's and the step's `env:`;
// the few `uses:` steps the scheduled job has are played by stand-ins (checkout: a fresh clone
// of a bare origin; actions/cache/restore and save: a folder that outlives the runner; the
// rest do nothing here). `${{ }}` expressions and `if:` conditions are looked up in a table of
// the ones the workflow uses: an expression it does not know fails the test, by name, so that a
// changed workflow is never run half-understood.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CLI } from './cli.js';

type Step = { name?: string; id?: string; uses?: string; run?: string; if?: string; with?: Record<string, string>; env?: Record<string, string> };
type Job = { env?: Record<string, string>; steps: Step[] };

/** What the job's expressions read: the repository's secret and variables, the site URL configure-pages gives. */
export interface JobInputs {
  /** `vars.CHANGELOG_BASE_URL`. */
  baseUrl: string;
  /** `secrets.CHANGELOG_TOKEN`. */
  token: string;
  /** `steps.pages.outputs.base_url`. */
  siteUrl: string;
  /** Where actions/cache keeps what it saves, across runs. */
  cacheDir: string;
  /** A folder for the runner's files (GITHUB_OUTPUT, the job summary, RUNNER_TEMP). */
  tempDir: string;
  /** Environment for git and the shell (no global git configuration, no CHANGELOG_* of the caller). */
  env: NodeJS.ProcessEnv;
}

/** One step as it ran. */
export interface StepRun {
  name: string;
  skipped: boolean;
  code: number;
  out: string;
}

/** A job of `workflow` (a path), parsed. */
export function loadJob(workflow: string, job: string): Job {
  return (parseYaml(readFileSync(workflow, 'utf8')) as { jobs: Record<string, Job> }).jobs[job]!;
}

/**
 * Installs changelog-sync in a clone the way `npm ci` does for a package that depends on it:
 * `node_modules/changelog-sync` (this checkout) and its bin in `node_modules/.bin`.
 */
export function installTool(clone: string, root: string): void {
  mkdirSync(join(clone, 'node_modules/.bin'), { recursive: true });
  symlinkSync(root, join(clone, 'node_modules/changelog-sync'));
  writeFileSync(join(clone, 'node_modules/.bin/changelog-sync'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(clone, 'node_modules/.bin/changelog-sync'), 0o755);
}

/**
 * Runs the job's steps in order in `clone` (checked out already: the checkout step is that
 * clone), as a scheduled run (`github.event_name` is `schedule`). A failed step skips the
 * rest but those whose `if:` runs after a failure, as the runner does.
 */
export async function runJob(job: Job, clone: string, inputs: JobInputs): Promise<StepRun[]> {
  const outputs = new Map<string, Record<string, string>>();
  const outcomes = new Map<string, string>();
  let failed = false;
  const summary = join(inputs.tempDir, 'step-summary.md');
  const out = (id: string, key: string) => outputs.get(id)?.[key] ?? '';
  const expressions: Record<string, () => string> = {
    '${{ vars.CHANGELOG_BASE_URL }}': () => inputs.baseUrl,
    '${{ secrets.CHANGELOG_TOKEN }}': () => inputs.token,
    '${{ vars.CHANGELOG_SITE_URL || steps.pages.outputs.base_url }}': () => out('pages', 'base_url'),
  };
  const conditions: Record<string, () => boolean> = {
    "${{ steps.sync.outputs.site_changed == 'true' || github.event_name == 'workflow_dispatch' || github.event_name == 'push' }}": () => out('sync', 'site_changed') === 'true',
    "${{ always() && steps.sync.outcome != 'skipped' }}": () => (outcomes.get('sync') ?? 'skipped') !== 'skipped',
    '${{ !cancelled() }}': () => true,
    "${{ steps.build.outcome == 'success' }}": () => outcomes.get('build') === 'success',
  };
  const resolve = (env: Record<string, string> = {}) =>
    Object.fromEntries(
      Object.entries(env).map(([k, v]) => {
        if (!v.includes('${{')) return [k, v];
        const f = expressions[v];
        if (!f) throw new Error(`the test harness does not know the expression ${v} (env ${k})`);
        return [k, f()];
      }),
    );
  const runs: StepRun[] = [];
  for (const step of job.steps) {
    const name = step.name ?? step.uses ?? step.run ?? '?';
    let run: boolean;
    if (step.if === undefined) run = !failed;
    else {
      const f = conditions[step.if];
      if (!f) throw new Error(`the test harness does not know the condition ${step.if} (step ${name})`);
      // Without a status function, GitHub adds `success() &&`.
      run = (/\b(always|cancelled|failure|success)\(\)/.test(step.if) || !failed) && f();
    }
    if (!run) {
      if (step.id) outcomes.set(step.id, 'skipped');
      runs.push({ name, skipped: true, code: 0, out: '' });
      continue;
    }
    const outputFile = join(inputs.tempDir, `output-${runs.length}`);
    writeFileSync(outputFile, '');
    let code = 0;
    let text = '';
    if (step.uses) {
      const action = step.uses.replace(/@.*/, '');
      const path = step.with?.path ?? '';
      if (action === 'actions/cache/restore' && path.endsWith('budget.json')) {
        const cached = join(inputs.cacheDir, path);
        if (existsSync(cached)) {
          mkdirSync(dirname(join(clone, path)), { recursive: true });
          copyFileSync(cached, join(clone, path));
        }
      } else if (action === 'actions/cache/save' && path.endsWith('budget.json')) {
        if (existsSync(join(clone, path))) {
          mkdirSync(dirname(join(inputs.cacheDir, path)), { recursive: true });
          copyFileSync(join(clone, path), join(inputs.cacheDir, path));
        }
      } else if (action === 'actions/configure-pages') {
        writeFileSync(outputFile, `base_url=${inputs.siteUrl}\n`);
      } else if (!['actions/checkout', 'actions/setup-node', 'actions/cache', 'actions/upload-pages-artifact'].includes(action)) {
        throw new Error(`the test harness does not know the action ${step.uses}`);
      }
    } else if (step.run && /^npm ci\b/.test(step.run)) {
      // Installed by installTool.
    } else if (step.run) {
      // Asynchronously: the emulator the steps talk to may run in this very process.
      const r = await bash(step.run, clone, {
        ...inputs.env,
        ...resolve(job.env),
        ...resolve(step.env),
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: inputs.tempDir,
        npm_config_offline: 'true',
        NO_COLOR: '1',
      });
      code = r.code;
      text = r.out;
    }
    if (step.id) {
      const lines = readFileSync(outputFile, 'utf8').split('\n').filter((l) => l.includes('='));
      outputs.set(step.id, Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])));
      outcomes.set(step.id, code === 0 ? 'success' : 'failure');
    }
    if (code !== 0) failed = true;
    runs.push({ name, skipped: false, code, out: text });
  }
  return runs;
}

/** Runs a script as the runner runs a `run:` step (bash -e, pipefail); stdout and stderr together. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** git in `cwd` with the caller's environment, output trimmed. */
export function git(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}
