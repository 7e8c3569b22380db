/**
 * The scheduled job's commit-back (docs/github-actions.md): commit the mirror and its state and
 * push to the branch checked out, even if it moved meanwhile: a rejected push is rebased and
 * retried a few times; a rebase that cannot apply is aborted, the commit pushed to a branch of
 * its own (nothing lost), and the command fails naming the conflicting files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChangelogSyncError } from '../../core/errors.js';

/** Options of {@link commitBack}. */
export interface CommitBackOptions {
  /** The git work tree (the project root). */
  cwd: string;
  /** The environment git runs with (`Config.env`: the CLI's, read at its entry): PATH, HOME, the remote's credentials. */
  env: NodeJS.ProcessEnv;
  /** Paths to add (relative to `cwd`); missing ones are skipped. */
  paths: string[];
  /** Paths never committed, relative to `cwd` (unstaged, removed from the index once): the request ledger, which changes every run. */
  exclude?: string[];
  /** Commit message. */
  message: string;
  /** Pushes to try at most (the first and the retries after a rebase). Default 4. */
  attempts?: number;
  /** The first retry is at once; the pause before retry n (n = 2, 3, ...) is n - 1 times this, ms. Default 2,000. */
  retryDelayMs?: number;
  /** List what would be committed only: no staging, no commit, no push. */
  dryRun?: boolean;
  /** Called with each step, for the log. */
  onStep?: (message: string) => void;
}

/** What {@link commitBack} did. */
export interface CommitBackResult {
  /** False when nothing was staged (nothing committed or pushed). */
  committed: boolean;
  /** The pushed commit (after any rebase). */
  commit?: string;
  /** Pushes tried. */
  attempts: number;
  /** Rebases onto a moved branch. */
  rebases: number;
  /** Files staged (git's names), in a dry run or before the commit. */
  staged: string[];
}

/** Where git runs: the work tree, and the environment it runs with. */
export type GitPlace = Pick<CommitBackOptions, 'cwd' | 'env'>;

interface GitRun {
  ok: boolean;
  stdout: string;
  stderr: string;
}

function git(where: GitPlace, args: string[]): GitRun {
  const r = spawnSync('git', args, { cwd: where.cwd, encoding: 'utf8', env: { ...where.env, GIT_TERMINAL_PROMPT: '0' } });
  if (r.error) throw new ChangelogSyncError('E_GIT', `cannot run git: ${r.error.message}`, { cause: r.error, hint: 'install git and run this in the repository' });
  return { ok: r.status === 0, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

/**
 * Runs git in `where`; its standard output, trimmed.
 * @param what the step, for the error (`staging`).
 * @throws {ChangelogSyncError} `E_GIT` when git fails or cannot run, with its output.
 */
export function must(where: GitPlace, args: string[], what: string): string {
  const r = git(where, args);
  if (!r.ok) throw new ChangelogSyncError('E_GIT', `${what} failed (git ${args.join(' ')}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/**
 * A push refused because the remote branch moved: it has commits the local one lacks, or
 * another push moved it while this one was being received (the ref lock's old value).
 */
const REJECTED = /\[rejected\]|non-fast-forward|fetch first|cannot lock ref .* but expected/i;

/**
 * Commits the given paths and pushes, rebasing onto a moved branch and retrying.
 * @throws {ChangelogSyncError} `E_GIT` when the rebase cannot apply (naming the conflicting files
 *   and the branch the commit was saved to), when the push is still rejected after `attempts`,
 *   or when git fails otherwise (its message kept).
 */
export async function commitBack(options: CommitBackOptions): Promise<CommitBackResult> {
  const { cwd, message } = options;
  const where: GitPlace = { cwd, env: options.env };
  const attempts = Math.max(1, options.attempts ?? 4);
  const delay = options.retryDelayMs ?? 2000;
  const step = options.onStep ?? (() => {});
  const paths = options.paths.filter((p) => existsSync(`${cwd}/${p}`));
  const exclude = options.exclude ?? [];
  // Excluded files a repository still tracks (committed by an earlier version): untracked once.
  const tracked = exclude.length > 0 ? must(where, ['ls-files', '--', ...exclude], 'listing the tracked files').split('\n').filter(Boolean) : [];
  if (options.dryRun) {
    // `git add --dry-run` prints "add 'x'" / "remove 'x'" and leaves the index alone.
    const listed = paths.length > 0 ? must(where, ['add', '--all', '--dry-run', '--', ...paths], 'listing the changes') : '';
    const added = listed.split('\n').filter(Boolean).map((l) => l.replace(/^\w+ '(.*)'$/, '$1'));
    const staged = [...added.filter((f) => !exclude.includes(f)), ...tracked];
    step(staged.length ? `Would commit ${staged.length} files and push them.` : 'Nothing changed: nothing to commit.');
    return { committed: false, attempts: 0, rebases: 0, staged };
  }
  if (paths.length > 0) must(where, ['add', '--all', '--', ...paths], 'staging');
  // Out of the index again: a new file unstaged, a tracked one untracked (its removal committed).
  if (exclude.length > 0) must(where, ['rm', '--cached', '--ignore-unmatch', '--quiet', '--', ...exclude], 'leaving out the files never committed');
  const staged = must(where, ['diff', '--cached', '--name-only'], 'listing the staged files').split('\n').filter(Boolean);
  if (staged.length === 0) {
    step('Nothing changed: nothing to commit.');
    return { committed: false, attempts: 0, rebases: 0, staged };
  }
  must(where, ['commit', '--quiet', '-m', message], 'the commit');
  let rebases = 0;
  for (let attempt = 1; ; attempt++) {
    const pushed = git(where, ['push', '--porcelain']);
    if (pushed.ok) {
      const commit = must(where, ['rev-parse', 'HEAD'], 'reading the commit');
      step(`Pushed ${commit.slice(0, 12)}${rebases ? ` after ${rebases} rebase${rebases > 1 ? 's' : ''}` : ''}.`);
      return { committed: true, commit, attempts: attempt, rebases, staged };
    }
    const output = `${pushed.stdout}\n${pushed.stderr}`;
    if (!REJECTED.test(output)) {
      throw new ChangelogSyncError('E_GIT', `the push failed (git push): ${pushed.stderr || pushed.stdout}`, {
        hint: 'check that the job may push (permissions: contents: write) and that no branch protection rule refuses the bot; the commit is kept in this clone',
      });
    }
    if (attempt >= attempts) {
      const saved = saveToBranch(where);
      throw new ChangelogSyncError('E_GIT', `the push was still rejected after ${attempts} tries: the branch keeps moving. ${saved.sentence}`, {
        hint: saved.branch ? `merge the branch ${saved.branch} into the main branch (or run the workflow again), then delete it` : 'run the workflow again from this clone',
      });
    }
    step(`The push was rejected (the branch moved): rebasing onto it (try ${attempt + 1} of ${attempts}) ...`);
    // The first retry at once (a writer's merge is the usual cause); later ones after a pause
    // (two pushers racing).
    if (delay > 0 && attempt > 1) await sleep(delay * (attempt - 1));
    const pulled = git(where, ['pull', '--rebase', '--quiet']);
    if (!pulled.ok) throw rebaseFailed(where, pulled);
    rebases++;
  }
}

/**
 * Pushes the commit at HEAD to a branch of its own (`changelog-sync/unmerged-<time>`), so
 * that a commit-back that cannot land on the moved branch is not lost with the runner.
 */
function saveToBranch(where: GitPlace): { branch?: string; sentence: string } {
  const commit = must(where, ['rev-parse', 'HEAD'], 'reading the commit');
  const branch = `changelog-sync/unmerged-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
  const saved = git(where, ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`]).ok;
  return saved
    ? { branch, sentence: `The commit ${commit.slice(0, 12)} was pushed to the branch ${branch}` }
    : { sentence: `The commit ${commit.slice(0, 12)} was kept in this clone only (saving it to a branch failed too)` };
}

/** Aborts a rebase that stopped (or explains a pull that failed), saves the commit to a branch of its own. */
function rebaseFailed(where: GitPlace, pulled: GitRun): ChangelogSyncError {
  const inRebase = ['rebase-merge', 'rebase-apply'].some((d) => existsSync(`${where.cwd}/${git(where, ['rev-parse', '--git-path', d]).stdout}`));
  const conflicts = inRebase ? git(where, ['diff', '--name-only', '--diff-filter=U']).stdout.split('\n').filter(Boolean) : [];
  if (inRebase) must(where, ['rebase', '--abort'], 'aborting the rebase');
  const saved = saveToBranch(where);
  const why = conflicts.length ? `conflict in ${conflicts.join(', ')}` : pulled.stderr || pulled.stdout;
  return new ChangelogSyncError(
    'E_GIT',
    inRebase ? `the commit-back cannot be rebased onto the moved branch: ${why}. ${saved.sentence}` : `git pull --rebase failed: ${why}. ${saved.sentence}`,
    {
      hint: saved.branch
        ? `merge the branch ${saved.branch} into the main branch by hand (resolve any conflict keeping the service's identifiers), then delete it`
        : 'the files changed on both sides; resolve by hand from this clone',
    },
  );
}
