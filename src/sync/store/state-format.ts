/**
 * The state format (docs/sync.md#state-format-and-upgrades): one number for the whole of
 * `.changelog/`, recorded as `version` in `state.json` beside the tool version that wrote it
 * (`tool`). Format 1 is 0.1.x's: `version: 1`, no `tool`, a `budget.json` without a version.
 *
 * Every command opens the state directory through {@link openStateFormat} before writing
 * anything there (the lock and ledger included):
 *
 * - a newer format is refused (`E_STATE_FORMAT`: upgrade changelog-sync), nothing written;
 * - an older one is migrated in place, each file atomically, `state.json` last: its `version`
 *   is the commit point, so a run killed between files migrates again over partly migrated
 *   files, and a migration must take its own output as input (idempotent);
 * - a dry run writes nothing: it runs on the older state when every pending migration reads
 *   the older shape as it is, and is refused (naming the command that migrates) otherwise.
 *
 * `budget.json` travels in the workflow's cache, not git, and may be older or newer than
 * `state.json`: its reader takes a ledger of any format.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonIfChanged } from '../../core/atomic-file.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { failpoint } from '../../core/failpoint.js';
import { fileStep } from '../../core/file-error.js';
import { commandLine } from '../../core/project-command.js';
import { assertInsideProject } from '../../core/project-path.js';
import { toolVersion } from '../../core/config.js';

/** The sync state, in the state directory: the format's record. */
export const STATE_FILE = 'state.json';
/** The rate budget's daily ledger, in the state directory (never committed: see `git-commit.ts`). */
export const BUDGET_FILE = 'budget.json';

/** One step of the state format: from format `to - 1` to format `to`. */
interface StateMigration {
  /** The format it produces. */
  to: number;
  /** The files of the state directory it reads and may rewrite, besides `state.json` (written last, by the runner). */
  files: readonly string[];
  /**
   * True when this version's readers read the older shape as it is: a dry run, which writes
   * nothing and so cannot migrate, then runs on the unmigrated state.
   */
  readableUnmigrated: boolean;
  /**
   * Rewrites the parsed files (by name, `undefined` when absent) in the map: set a name to
   * change that file. Must take its own output as input (see the module doc).
   */
  migrate(files: Map<string, unknown>): void;
}

/** The migrations, oldest first: the one at index i produces format i + 2. */
const MIGRATIONS: StateMigration[] = [
  {
    to: 2,
    files: [BUDGET_FILE],
    readableUnmigrated: true,
    migrate(files) {
      const budget = files.get(BUDGET_FILE);
      if (budget === undefined || typeof budget !== 'object' || budget === null) return;
      const { ledger } = budget as { ledger?: unknown };
      files.set(BUDGET_FILE, { version: 2, ledger: Array.isArray(ledger) ? ledger : [] });
    },
  },
];

/** The state format this version reads and writes. */
export const STATE_FORMAT = MIGRATIONS.length + 1;

/** The `tool` of a state file, when it is a plain version string (data never reaches a message otherwise). */
export function recordedTool(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]{1,40})?$/.test(value) ? value : undefined;
}

/**
 * A state file's JSON; `undefined` when it does not exist.
 * @param hint the fix a broken file's error gives.
 * @throws {ChangelogSyncError} `E_FILE` when it cannot be read or is not JSON, naming the file.
 */
export async function readJsonFile(path: string, hint = 'restore it from git (git checkout -- <file>); the state format cannot be migrated past it'): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ChangelogSyncError('E_FILE', `cannot read ${path}: ${(err as Error).message}`, { file: path, cause: err });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new ChangelogSyncError('E_FILE', `${path} is not valid JSON: ${(cause as Error).message}`, {
      file: path,
      cause,
      hint,
    });
  }
}

/**
 * The error for a state of a newer format than this version knows.
 * @param path the `state.json` that records it.
 * @param tool the version that wrote it, when recorded (see {@link recordedTool}).
 */
export function newerStateError(path: string, format: number, tool: string | undefined): ChangelogSyncError {
  const by = tool ? `, written by changelog-sync ${tool}` : '';
  return new ChangelogSyncError('E_STATE_FORMAT', `${path} is state format ${format}${by}; this changelog-sync (${toolVersion()}) knows formats 1 to ${STATE_FORMAT}. Nothing was written`, {
    file: path,
    field: 'version',
    hint: `upgrade changelog-sync${tool ? ` to ${tool} or later (npm install changelog-sync@${tool})` : ' (npm install changelog-sync@latest)'}: a newer state is never read by an older tool`,
  });
}

/** True when this version reads a `state.json` of `format` as it is (the current format, or an older one every later migration reads unmigrated). */
export function isReadableFormat(format: number): boolean {
  return format >= 1 && format <= STATE_FORMAT && MIGRATIONS.slice(format - 1).every((m) => m.readableUnmigrated);
}

/** A migration done (or, for a dry run, due). */
export interface StateFormatChange {
  /** The format found. */
  from: number;
  /** The format now ({@link STATE_FORMAT}). */
  to: number;
  /** Paths written, `state.json` last; empty for a dry run, which writes nothing. */
  written: string[];
}

/** Options of {@link openStateFormat}. */
export interface OpenStateFormatOptions {
  /** Migrate an older state (false: a dry run, which writes nothing). */
  migrate: boolean;
  /**
   * The project root: a migration writes nothing through a symbolic link out of it
   * (`core/project-path.ts`), and a message names the command as the project runs it.
   */
  root: string;
}

/**
 * Opens the state directory's format before a command reads or writes it: refuses a newer one,
 * migrates an older one in place.
 * @returns what was migrated (or is due, for a dry run); undefined when current or absent.
 * @throws {ChangelogSyncError} `E_STATE_FORMAT` for a newer format, or an older one a dry run
 *   cannot read; `E_FILE` for a file a migration cannot read or write; `E_OUTSIDE_PROJECT`.
 */
export async function openStateFormat(stateDir: string, options: OpenStateFormatOptions): Promise<StateFormatChange | undefined> {
  const path = join(stateDir, STATE_FILE);
  // A file that is no state (or no JSON) is left to its reader (`loadState`) to report.
  const json = (await readJsonFile(path).catch(() => undefined)) as { version?: unknown; tool?: unknown } | null | undefined;
  const format = json?.version;
  if (typeof format !== 'number' || !Number.isInteger(format) || format < 1 || format === STATE_FORMAT) return undefined;
  if (format > STATE_FORMAT) throw newerStateError(path, format, recordedTool(json!.tool));
  if (!options.migrate) {
    if (isReadableFormat(format)) return { from: format, to: STATE_FORMAT, written: [] };
    throw new ChangelogSyncError('E_STATE_FORMAT', `${path} is state format ${format}; this changelog-sync (${toolVersion()}) reads it only once migrated to format ${STATE_FORMAT}, and a dry run writes nothing`, {
      file: path,
      field: 'version',
      hint: `run \`${commandLine(options.root, 'sync')}\` once (it migrates the state), then the dry run`,
    });
  }
  // Nothing is written through a symbolic link out of the project (the commands check the rest later).
  await assertInsideProject({ root: options.root, stateDir });
  const pending = MIGRATIONS.slice(format - 1);
  const names = [...new Set(pending.flatMap((m) => m.files))].filter((n) => n !== STATE_FILE);
  const files = new Map<string, unknown>();
  for (const name of names) files.set(name, await readJsonFile(join(stateDir, name)));
  files.set(STATE_FILE, json);
  for (const migration of pending) migration.migrate(files);
  const written: string[] = [];
  for (const name of names) {
    const value = files.get(name);
    if (value === undefined) continue;
    const file = join(stateDir, name);
    if (await fileStep({ file, step: `migrating the state to format ${STATE_FORMAT}` }, () => writeJsonIfChanged(file, value))) written.push(file);
    failpoint('state-format:after-file');
  }
  // state.json last, with its format: the commit point of the migration.
  const state: Record<string, unknown> = { version: STATE_FORMAT, tool: toolVersion(), ...(files.get(STATE_FILE) as Record<string, unknown>) };
  state.version = STATE_FORMAT;
  state.tool = toolVersion();
  await fileStep({ file: path, step: `migrating the state to format ${STATE_FORMAT}` }, () => writeJsonIfChanged(path, state));
  written.push(path);
  return { from: format, to: STATE_FORMAT, written };
}
