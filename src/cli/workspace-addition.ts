/**
 * `changelog-sync init --workspace <key> [--first <key>] [--dry-run]`: adds a product to a
 * repository (docs/sync.md "Adding a product"). With `workspaces` in `changelog.config.json`: its
 * entry (`"<key>": { "tokenEnv": "CHANGELOG_TOKEN_<KEY>" }`) and its secret among the scheduled
 * workflow's `workspace-secrets`. In a repository of one workspace, that workspace first becomes
 * the first product: its mirror (`content/entries`, `_data`, `images`, `media`) and its state
 * (all of `.changelog/` but the site's build record and feed dates) move to `content/<first>/` and
 * `.changelog/<first>/`, with `git mv` in a git repository, under the state's lock, so that the
 * push journal and the identifiers go with the files and nothing is pushed twice. Every other
 * text of the files it edits is kept as it is.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { applyEdits, format, modify } from 'jsonc-parser';
import { writeFileAtomic } from '../core/atomic-file.js';
import { CONFIG_FILE, type Config } from '../core/config.js';
import { IMAGES_DIR, ENTRIES_DIR } from '../core/content-layout.js';
import { ChangelogSyncError } from '../core/errors.js';
import { keyLike, tokenEnvFor, WORKSPACE_KEY } from '../core/workspace-entries.js';
import { MEDIA_DIR } from '../convert/media-refs.js';
import { WORKSPACE_DATA_FILE } from '../entry/workspace-binding.js';
import { FEED_DATES_FILE } from '../site/data/feed-item.js';
import { SITE_INPUTS_FILE } from '../site/pipeline/build-inputs.js';
import { checkSections } from '../site/pipeline/build-prepare.js';
import { must } from '../sync/store/git-commit.js';
import { acquireLock, LOCK_DIR, LOCK_HOLDER_FILE } from '../sync/store/lock.js';
import { EXIT, type ExitCode } from './output/exit-codes.js';
import type { Reporter } from './output/reporter.js';
import { gitignoreAddition, gitignoreLines, repositoryFit } from './init-fit.js';
import { withWorkspaceSecret } from './team-workflows.js';

/** The team's scheduled workflow, as `init` writes it (src/cli/team-workflows.ts). */
const SCHEDULED_WORKFLOW = '.github/workflows/changelog.yml';

/** What {@link addWorkspace} does. Paths are relative to the repository root, `/`-separated. */
export interface WorkspaceAddition {
  /** The new workspace's key and the variable (a repository secret in GitHub Actions) its token is read from. */
  key: string;
  tokenEnv: string;
  /** The repository's one workspace, made the first product (a repository without `workspaces`). */
  first?: {
    key: string;
    tokenEnv: string;
    /** Its name on the service (`content/_data/workspace.json`), when mirrored. */
    name?: string;
    /** The folders and files moved into its own folders. */
    moves: Array<{ from: string; to: string }>;
  };
  /** Whether the moves are `git mv` (a git repository). */
  git: boolean;
  /** The files changed (or that would be). */
  edited: string[];
  /** What is left to the user, one sentence each. */
  notes: string[];
  dryRun: boolean;
}

/** `/`-separated path of `abs` relative to `root`. */
const rel = (root: string, abs: string): string => relative(root, abs).split(sep).join('/');

/**
 * Refuses `key` as a new workspace's: not a key, a folder of the site's root, or in use.
 * @throws {ChangelogSyncError} `E_USAGE` naming the field `workspaces.<key>` and a fix.
 */
function checkNewKey(key: string, option: string, taken: string[]): void {
  if (!WORKSPACE_KEY.test(key)) {
    throw new ChangelogSyncError('E_USAGE', `${option} ${JSON.stringify(key)}: not a workspace key: it is the product's path on the site, lower-case letters and digits, words joined by single "-"`, {
      field: `workspaces.${key}`,
      hint: `e.g. ${option} ${keyLike(key)}`,
    });
  }
  if (taken.includes(key)) {
    throw new ChangelogSyncError('E_USAGE', `${option} ${key}: ${CONFIG_FILE} has a workspace "${key}" already (the workspaces are ${taken.join(', ')})`, {
      field: `workspaces.${key}`,
      hint: `choose another key for the new product; ${CONFIG_FILE} keeps "${key}" as it is`,
    });
  }
  try {
    // The site's own rule for its sections' keys (a folder of its root is none).
    checkSections([...taken, key].map((k) => ({ key: k })));
  } catch (cause) {
    throw new ChangelogSyncError('E_USAGE', `${option} ${key}: ${(cause as Error).message}`, { cause, field: `workspaces.${key}`, hint: `choose another key: it is the product's path on the site, e.g. ${option} ${key}-changes` });
  }
}

/** The indentation a JSON text uses, for the lines added to it: its first indented line's, else two spaces. */
function jsonIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1 } : { insertSpaces: true, tabSize: indent.length };
}

/** `text` (a JSON object) with `value` set at `path`, the inserted lines formatted as the text's and the rest kept. */
function jsonWith(text: string, path: string[], value: unknown): string {
  const formatting = { ...jsonIndent(text), eol: text.includes('\r\n') ? '\r\n' : '\n' };
  const edits = modify(text, path, value, {});
  const out = applyEdits(text, edits);
  const inserted = edits.map((e) => ({ offset: e.offset, length: e.content.length }))[0];
  return inserted ? applyEdits(out, format(out, inserted, formatting)) : out;
}

/** The name of the workspace mirrored in `contentDir` (its `_data/workspace.json`), if any. */
async function mirroredName(contentDir: string): Promise<string | undefined> {
  try {
    const name = (JSON.parse(await readFile(join(contentDir, WORKSPACE_DATA_FILE), 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' && name.trim() ? name : undefined;
  } catch {
    return undefined; // not mirrored yet, or unreadable: init names no key after it
  }
}

/** What of a one-workspace project moves to its first product's folders: the mirror's folders, and its state but the site's files and the lock. */
function firstMoves(config: Config, first: string): Array<{ from: string; to: string }> {
  const mirror = [ENTRIES_DIR, '_data', IMAGES_DIR, MEDIA_DIR].filter((d) => existsSync(join(config.contentDir, d)));
  // The first product's own folder too: a run stopped midway left some of the state there.
  const stay = new Set([SITE_INPUTS_FILE, FEED_DATES_FILE, LOCK_DIR, LOCK_HOLDER_FILE, first]);
  const state = existsSync(config.stateDir) ? readdirSync(config.stateDir).filter((n) => !stay.has(n)) : [];
  return [
    ...mirror.map((d) => ({ from: rel(config.root, join(config.contentDir, d)), to: rel(config.root, join(config.contentDir, first, d)) })),
    ...state.map((n) => ({ from: rel(config.root, join(config.stateDir, n)), to: rel(config.root, join(config.stateDir, first, n)) })),
  ];
}

/**
 * Adds the workspace `key` to the project at `config.root` (see the module doc), or with
 * `dryRun` says what it would do and writes nothing.
 * @param options.first the key of the repository's one workspace when it becomes the first
 *   product (default: its name on the service made a key, `keyLike`).
 * @throws {ChangelogSyncError} `E_USAGE` for a key that is not one or is in use, or a first
 *   workspace with no name to make its key of; `E_LOCKED` while a sync holds the state's lock;
 *   `E_GIT` when a `git mv` fails; `E_FILE` for a scheduled workflow without a call of `sync.yml`.
 */
export async function addWorkspace(config: Config, options: { key: string; first?: string; dryRun?: boolean }): Promise<WorkspaceAddition> {
  const { root } = config;
  const taken = (config.workspaces ?? []).map((w) => w.key);
  checkNewKey(options.key, '--workspace', taken);
  const dryRun = Boolean(options.dryRun);
  const result: WorkspaceAddition = { key: options.key, tokenEnv: tokenEnvFor(options.key), git: false, edited: [], notes: [], dryRun };
  const configPath = join(root, CONFIG_FILE);
  let configText = existsSync(configPath) ? await readFile(configPath, 'utf8') : '{}\n';

  if (config.workspaces) {
    if (options.first !== undefined) throw new ChangelogSyncError('E_USAGE', `--first ${options.first}: ${CONFIG_FILE} names workspaces already; --first names the one workspace of a repository without them`, { field: '--first', hint: 'leave out --first' });
    const clash = config.workspaces.find((w) => w.tokenEnv === result.tokenEnv);
    if (clash) throw new ChangelogSyncError('E_USAGE', `--workspace ${options.key}: its token's variable ${result.tokenEnv} is the tokenEnv of workspace "${clash.key}"`, { field: `workspaces.${options.key}.tokenEnv`, hint: `choose another key, or add "${options.key}" to ${CONFIG_FILE} by hand with a tokenEnv of its own` });
    configText = jsonWith(configText, ['workspaces', options.key], { tokenEnv: result.tokenEnv });
  } else {
    const name = await mirroredName(config.contentDir);
    // A mirror: pulled (its workspace.json), or entry files written before any pull.
    const mirrored = name !== undefined || (existsSync(join(config.contentDir, ENTRIES_DIR)) && readdirSync(join(config.contentDir, ENTRIES_DIR)).some((f) => f.endsWith('.md')));
    const firstKey = options.first ?? (name !== undefined ? keyLike(name) : undefined);
    if (mirrored && firstKey === undefined) {
      throw new ChangelogSyncError('E_USAGE', `${rel(root, config.contentDir)}/ mirrors a workspace whose name is unknown (no ${WORKSPACE_DATA_FILE}): it becomes the first product, and its key is needed`, { field: '--first', hint: `name its key: --first <key>, e.g. --first app` });
    }
    if (firstKey !== undefined) {
      checkNewKey(firstKey, '--first', []);
      checkNewKey(options.key, '--workspace', [firstKey]);
      result.first = { key: firstKey, tokenEnv: tokenEnvFor(firstKey), ...(name !== undefined && { name }), moves: mirrored || existsSync(config.stateDir) ? firstMoves(config, firstKey) : [] };
    }
    const entries = result.first ? { [result.first.key]: { tokenEnv: result.first.tokenEnv }, [options.key]: { tokenEnv: result.tokenEnv } } : { [options.key]: { tokenEnv: result.tokenEnv } };
    configText = jsonWith(configText, ['workspaces'], entries);
  }
  result.edited.push(CONFIG_FILE);

  // The workflow hands the sync every workspace's secret: those listed before, the first's, the new one's.
  const workflowPath = join(root, SCHEDULED_WORKFLOW);
  const secrets = [...(config.workspaces ?? []).map((w) => w.tokenEnv), ...(result.first ? [result.first.tokenEnv] : []), result.tokenEnv];
  let workflowText: string | undefined;
  if (existsSync(workflowPath)) {
    const before = await readFile(workflowPath, 'utf8');
    workflowText = secrets.reduce((text, s) => withWorkspaceSecret(text, s, SCHEDULED_WORKFLOW) ?? text, before);
    if (workflowText !== before) result.edited.push(SCHEDULED_WORKFLOW);
  } else {
    result.notes.push(`${SCHEDULED_WORKFLOW} does not exist: \`changelog-sync init\` writes it, with the workspaces' secrets listed`);
  }
  const fit = { ...repositoryFit(config), workspaceSecrets: secrets };
  const gitignorePath = join(root, '.gitignore');
  const ignore = gitignoreAddition(existsSync(gitignorePath) ? await readFile(gitignorePath, 'utf8') : undefined, gitignoreLines(fit));
  if (ignore) result.edited.push('.gitignore');

  result.git = (result.first?.moves.length ?? 0) > 0 && insideGit(config);
  result.notes.push(...secretNotes(result));
  if (dryRun) return result;

  // No sync of the one workspace runs while its state moves: it would write where the files were.
  const lock = result.first?.moves.length ? await acquireLock(config.stateDir, 'init --workspace') : undefined;
  try {
    for (const m of result.first?.moves ?? []) {
      await mkdir(dirname(join(root, m.to)), { recursive: true });
      const tracked = result.git && must({ cwd: root, env: config.env }, ['ls-files', '--', m.from], 'listing the tracked files') !== '';
      // git mv moves the untracked files in a folder too, and keeps each file's changes.
      if (tracked) must({ cwd: root, env: config.env }, ['mv', '--', m.from, m.to], `moving ${m.from}`);
      else await rename(join(root, m.from), join(root, m.to));
    }
    await writeFileAtomic(configPath, configText);
    if (workflowText !== undefined && result.edited.includes(SCHEDULED_WORKFLOW)) await writeFileAtomic(workflowPath, workflowText);
    if (ignore) await writeFileAtomic(gitignorePath, ignore.text);
  } finally {
    await lock?.release();
  }
  return result;
}

/** Whether the project is in a git work tree (git answers, and says so). */
function insideGit(config: Config): boolean {
  try {
    return must({ cwd: config.root, env: config.env }, ['rev-parse', '--is-inside-work-tree'], 'finding the git repository') === 'true';
  } catch {
    return false; // no repository (or no git): the folders are renamed as they are
  }
}

/** The secrets (and local variables) to set: the new workspace's, and the first's in place of CHANGELOG_TOKEN. */
function secretNotes(a: WorkspaceAddition): string[] {
  const notes = [`add the repository secret ${a.tokenEnv}: workspace "${a.key}"'s access token (and set ${a.tokenEnv} where you run changelog-sync yourself)`];
  if (a.first) {
    notes.unshift(`the token of "${a.first.key}" moves from CHANGELOG_TOKEN to ${a.first.tokenEnv}: add the repository secret ${a.first.tokenEnv} with CHANGELOG_TOKEN's value, then delete CHANGELOG_TOKEN (changelog-sync no longer reads it here)`);
  }
  return notes;
}

/** `init --workspace`: {@link addWorkspace}, reported. */
export async function addWorkspaceCommand(config: Config, reporter: Reporter, options: { key: string; first?: string; dryRun?: boolean }): Promise<ExitCode> {
  const a = await addWorkspace(config, options);
  const verb = (done: string, planned: string) => (a.dryRun ? planned : done);
  const lines = [
    ...(a.first && a.first.moves.length === 0 ? [`The first product: "${a.first.key}" (nothing mirrored yet to move).`] : []),
    ...(a.first && a.first.moves.length > 0
      ? [
          `The repository's workspace${a.first.name ? ` "${a.first.name}"` : ''} becomes the first product, "${a.first.key}" (--first <key> for another key: it is its path on the site, /${a.first.key}/; its old URLs redirect there):`,
          ...a.first.moves.map((m) => `  > ${m.from} -> ${m.to} (${verb('moved', 'would move')}${a.git ? ' with git mv' : ''})`),
        ]
      : []),
    ...a.edited.map((f) => `  ~ ${f} (${verb('edited', 'would edit')})`),
    '',
    'Still to do:',
    ...a.notes.map((n) => `  ! ${n}`),
    `  ! commit, then \`changelog-sync sync\` mirrors "${a.key}" into ${rel(config.root, join(config.contentDir, a.key))}/`,
  ];
  reporter.result(`${a.dryRun ? 'Plan' : `Added workspace "${a.key}"`}:\n${lines.join('\n')}`, { command: 'init', workspace: a });
  return EXIT.OK;
}
