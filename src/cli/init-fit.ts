/**
 * What `init` fits to its repository (docs/github-actions.md): the default branch and configured
 * folders the workflows (`team-workflows.ts`) and `.gitignore` name, and how an existing file differs.
 */
import { spawnSync } from 'node:child_process';
import { relative, sep } from 'node:path';
import { structuredPatch } from 'diff';
import type { Config } from '../core/config.js';
import { ChangelogSyncError } from '../core/errors.js';

/** The repository's branch and folders, relative to its root with `/` separators. */
export interface RepositoryFit {
  /** The branch the push trigger watches. */
  branch: string;
  /** Where the branch came from, for the report. */
  branchSource: 'origin' | 'current' | 'default';
  contentDir: string;
  stateDir: string;
  outputDir: string;
  /** The secrets of the workspaces' tokens (their `tokenEnv`s), with several workspaces: the scheduled workflow hands each to the sync. */
  workspaceSecrets?: string[];
}

/** Whether a folder or branch name goes into YAML, a glob and a quoted shell word as it is: `/`-separated `[A-Za-z0-9._-]` names, none `.` or `..`. */
function plain(name: string): boolean {
  return name.split('/').every((part) => /^[A-Za-z0-9._-]+$/.test(part) && part !== '.' && part !== '..');
}

/** Runs git in the project root, with the environment the CLI was started with (`Config.env`). */
function git(config: Pick<Config, 'root' | 'env'>, args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd: config.root, encoding: 'utf8', env: { ...config.env, GIT_TERMINAL_PROMPT: '0' } });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

/** The default branch: origin's (`refs/remotes/origin/HEAD`, set by a clone), else the checked-out (or unborn) branch, else `main`. */
function defaultBranch(config: Pick<Config, 'root' | 'env'>): { branch: string; source: RepositoryFit['branchSource'] } {
  const remote = git(config, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'])?.replace(/^refs\/remotes\/origin\//, '');
  if (remote && plain(remote)) return { branch: remote, source: 'origin' };
  const current = git(config, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (current && plain(current)) return { branch: current, source: 'current' };
  return { branch: 'main', source: 'default' };
}

/**
 * The configured folders as the workflows name them, and the default branch.
 * @throws {ChangelogSyncError} `E_CONFIG` when a folder is outside the repository, is its root,
 *   or has a character a workflow cannot hold as it is (quotes, spaces, glob characters).
 */
export function repositoryFit(config: Config): RepositoryFit {
  const folder = (field: 'contentDir' | 'stateDir' | 'outputDir'): string => {
    const rel = relative(config.root, config[field]).split(sep).join('/');
    if (!rel || !plain(rel)) {
      throw new ChangelogSyncError('E_CONFIG', `${field} ${JSON.stringify(rel || '.')} cannot be written into the workflows: it must be a folder inside the repository, named with letters, digits, ".", "_", "-" and "/"`, {
        field,
        hint: `set ${field} in changelog.config.json (or its CHANGELOG_* variable) to such a folder, e.g. "${field === 'contentDir' ? 'content' : field === 'stateDir' ? '.changelog' : '_site'}"`,
      });
    }
    return rel;
  };
  const { branch, source } = defaultBranch(config);
  return {
    branch,
    branchSource: source,
    contentDir: folder('contentDir'),
    stateDir: folder('stateDir'),
    outputDir: folder('outputDir'),
    ...(config.workspaces && { workspaceSecrets: config.workspaces.map((w) => w.tokenEnv) }),
  };
}

/** The lines `init` makes sure `.gitignore` has: packages, the built site, the demo, a push's lock and the request ledger. */
export function gitignoreLines(fit: RepositoryFit): string[] {
  const lines = ['node_modules/', `${fit.outputDir}/`, '.demo/', `${fit.stateDir}/lock/`, `${fit.stateDir}/lock.json`, `${fit.stateDir}/budget.json`];
  // Several workspaces: each has these in its own folder of the state directory.
  return fit.workspaceSecrets ? [...lines, `${fit.stateDir}/*/lock/`, `${fit.stateDir}/*/lock.json`, `${fit.stateDir}/*/budget.json`] : lines;
}

/**
 * `.gitignore` with the `lines` it lacks added at its end, under a `# changelog-sync` comment.
 * @param current its text; undefined when there is none.
 * @returns the new text and the lines added; undefined when none is missing.
 */
export function gitignoreAddition(current: string | undefined, lines: string[]): { text: string; added: string[] } | undefined {
  const have = new Set((current ?? '').split(/\r?\n/).map((l) => l.trim()));
  const added = lines.filter((l) => !have.has(l) && !have.has(l.replace(/\/$/, '')));
  if (added.length === 0) return undefined;
  const prefix = current === undefined || current === '' || current.endsWith('\n') ? current ?? '' : `${current}\n`;
  return { text: `${prefix}# changelog-sync\n${added.join('\n')}\n`, added };
}

/** The most diff lines shown for one file. */
const MAX_DIFF_LINES = 40;

/** How an existing file differs from what `init` would write, as unified-diff hunks (at most {@link MAX_DIFF_LINES} lines); empty when the same. */
export function differences(current: string, wanted: string): { added: number; removed: number; lines: string[] } {
  const patch = structuredPatch('yours', 'init', current, wanted, undefined, undefined, { context: 1 });
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines.filter((l) => !l.startsWith('\\')));
    added += h.lines.filter((l) => l.startsWith('+')).length;
    removed += h.lines.filter((l) => l.startsWith('-')).length;
  }
  const shown = lines.length > MAX_DIFF_LINES ? [...lines.slice(0, MAX_DIFF_LINES), `... ${lines.length - MAX_DIFF_LINES} more lines`] : lines;
  return { added, removed, lines: shown };
}
