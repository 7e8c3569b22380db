/**
 * `changelog-sync commit-back [--message M] [--attempts N] [--retry-delay MS] [--dry-run] [paths...]`:
 * the scheduled workflow's commit of the mirror and its state, pushed even when the branch
 * moved meanwhile (src/sync/store/git-commit.ts).
 */
import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config } from '../../core/config.js';
import { commitBack } from '../../sync/store/git-commit.js';
import { BUDGET_FILE } from '../../sync/store/state.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { SITE_INPUTS_FILE } from '../../site/pipeline/build-inputs.js';

/** The commit message of the scheduled job (`[skip ci]`: the commit triggers no workflow). */
const COMMIT_BACK_MESSAGE = 'changelog: sync from the service [skip ci]';

/** Options of {@link commitBackCommand}. */
export interface CommitBackCommandOptions {
  message?: string;
  attempts?: number;
  retryDelay?: number;
  dryRun?: boolean;
  /** Remove the last site build's record (`site-inputs.json`) before committing: its deployment failed, so the next run deploys again. */
  forgetSiteBuild?: boolean;
}

/**
 * Commits `paths` (default: the content and state directories) and pushes, rebasing and retrying
 * when rejected. Never `budget.json`: the workflow caches it (docs/github-actions.md), so a run
 * that changed nothing commits nothing.
 * @throws {ChangelogSyncError} `E_GIT` (see {@link commitBack}).
 */
export async function commitBackCommand(config: Config, reporter: Reporter, paths: string[], options: CommitBackCommandOptions = {}): Promise<ExitCode> {
  const targets = paths.length > 0 ? paths : [config.contentDir, config.stateDir].map((p) => relative(config.root, p) || '.');
  if (options.forgetSiteBuild && !options.dryRun) await rm(join(config.stateDir, SITE_INPUTS_FILE), { force: true });
  const result = await commitBack({
    cwd: config.root,
    env: config.env,
    paths: targets,
    // The request ledgers (the project's, or each workspace's) are carried between runs by the workflow's cache, not by commits.
    exclude: [config.stateDir, ...(config.workspaces ?? []).map((w) => w.stateDir)].map((dir) => relative(config.root, join(dir, BUDGET_FILE))),
    message: options.message ?? COMMIT_BACK_MESSAGE,
    attempts: options.attempts,
    retryDelayMs: options.retryDelay,
    dryRun: options.dryRun,
    onStep: (m) => reporter.info(m),
  });
  const text = !result.committed
    ? result.staged.length > 0
      ? `Plan: commit ${result.staged.length} files and push`
      : 'Nothing to commit'
    : `Committed ${result.staged.length} files and pushed ${result.commit!.slice(0, 12)}${result.rebases ? ` (rebased ${result.rebases}x onto the moved branch)` : ''}`;
  reporter.result(text, { command: 'commit-back', ...result });
  return EXIT.OK;
}
