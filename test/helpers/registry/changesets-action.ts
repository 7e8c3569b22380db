// A stand-in for changesets/action v1 (the step of .github/workflows/release.yml), for the
// workflow runner (test/helpers/process/workflow-runner.ts). It does what the action's source
// does for a repository of one package (github.com/changesets/action at v1.9.0: its index and run modules), with git where the action calls GitHub's API:
// - while .changeset/ holds changesets: checks out changeset-release/main, runs `version`,
//   commits everything with `commit` and force-pushes that branch to origin (the version pull
//   request's head; the action then opens or updates the pull request);
// - when none is left and `publish` is given: runs it and, when its output has a `New tag:`
//   line, pushes the tag v<version> to origin (the action then makes a GitHub release of it);
//   outputs `published` and `publishedPackages`.
// The scripts run through bash in the job's clone, with the step's `env:` over the environment
// given (the local registry's), but for NPM_CONFIG_PROVENANCE: a provenance statement is
// signed with GitHub's OIDC token, which no test has (the workflow's own tests check that it
// asks for one).
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionStandIn } from '../process/workflow-runner.js';
import { git } from '../process/workflow-runner.js';

/** The identity the action commits and tags as (its `setupGitUser`). */
const BOT = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

/** A script run as `bash -c`, to its end: its exit code and what it printed. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let log = '';
    child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), (log += d.toString())));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, log }));
  });
}

/** The changesets waiting in a clone (@changesets/read's rule: .changeset/*.md but its README). */
const pendingChangesets = (dir: string): string[] => readdirSync(join(dir, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');

/**
 * changesets/action for the workflow runner, its scripts run with `env` (a whole environment:
 * PATH, git's, the registry's npm settings) under the step's own `env:`.
 */
export function changesetsAction(env: Record<string, string>): ActionStandIn {
  return async ({ dir, with: withs, env: stepEnv }) => {
    const scriptEnv = { ...env, ...stepEnv };
    delete scriptEnv.NPM_CONFIG_PROVENANCE;
    for (const [key, value] of [['user.name', BOT.name], ['user.email', BOT.email]]) git(dir, ['config', key!, value!], env);
    const outputs: Record<string, string> = { published: 'false', publishedPackages: '[]', hasChangesets: 'false' };
    if (pendingChangesets(dir).length > 0) {
      outputs.hasChangesets = 'true';
      git(dir, ['checkout', '-q', '-B', 'changeset-release/main'], env);
      const version = await bash(withs.version || 'npx changeset version', dir, scriptEnv);
      if (version.code !== 0) return { ok: false, outputs, log: version.log };
      git(dir, ['add', '-A'], env);
      git(dir, ['commit', '-q', '-m', withs.commit || 'Version Packages'], env);
      git(dir, ['push', '-q', '--force', 'origin', 'HEAD:refs/heads/changeset-release/main'], env);
      return { ok: true, outputs: { ...outputs, pullRequestNumber: '1' }, log: version.log };
    }
    if (!withs.publish) return { ok: true, outputs };
    const published = await bash(withs.publish, dir, scriptEnv);
    if (/New tag:/.test(published.stdout)) {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
      git(dir, ['push', '-q', 'origin', `refs/tags/v${pkg.version}`], env);
      outputs.published = 'true';
      outputs.publishedPackages = JSON.stringify([{ name: pkg.name, version: pkg.version }]);
    }
    return { ok: published.code === 0, outputs, log: published.log };
  };
}
