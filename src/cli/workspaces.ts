/**
 * A command over the workspaces of `changelog.config.json` (docs/sync.md "Several workspaces"):
 * it runs once per workspace, in the file's order, or on the one `--workspace <key>` names, each
 * on that workspace's single-workspace configuration (`workspaceConfig`), so the command itself
 * is unchanged. A workspace's failure is reported as its own (its lines start with `[<key>]`, in
 * GitHub Actions one annotation names it) and the next goes on; the exit code is the worst.
 * Without `workspaces` the command runs as it always did.
 */
import { relative, resolve } from 'node:path';
import { CONFIG_FILE, workspaceConfig, type Config, type WorkspaceEntry } from '../core/config.js';
import { ChangelogSyncError } from '../core/errors.js';
import { worstExit, type ExitCode } from './output/exit-codes.js';
import { handleError } from './output/handle-error.js';
import type { Reporter } from './output/reporter.js';
import { stopReceived } from './stop-signals.js';

/** A command's body on one workspace's configuration, with its reporter; its exit code. */
export type WorkspaceBody = (config: Config, reporter: Reporter) => Promise<ExitCode>;

/** What {@link runEachWorkspace} did: the worst exit code and, with `--json`, each workspace's result by key. */
export interface EachWorkspaceRun {
  code: ExitCode;
  results: Record<string, unknown>;
}

/**
 * The workspaces a run acts on: all, in order, or the one `selected` names.
 * @throws {ChangelogSyncError} `E_USAGE` naming the known keys for an unknown one, or when the file names no workspaces.
 */
export function selectWorkspaces(config: Config, selected: string | undefined): WorkspaceEntry[] | undefined {
  const all = config.workspaces;
  if (selected === undefined) return all;
  if (!all) {
    throw new ChangelogSyncError('E_USAGE', `--workspace ${selected}: ${CONFIG_FILE} names no workspaces`, { hint: `leave out --workspace, or add "workspaces" to ${CONFIG_FILE} (docs/sync.md "Several workspaces")` });
  }
  const one = all.find((w) => w.key === selected);
  if (!one) {
    throw new ChangelogSyncError('E_USAGE', `--workspace ${selected}: no such workspace in ${CONFIG_FILE}; the workspaces are ${all.map((w) => w.key).join(', ')}`, { hint: `use one of ${all.map((w) => w.key).join(', ')}` });
  }
  return [one];
}

/**
 * Runs `body` on each selected workspace (see the module doc); an error of one is reported
 * through its reporter (`handleError`) and counts as its exit code. No next workspace starts
 * once the run was told to stop.
 * @param debug `--debug`: stacks of a workspace's error.
 * @throws {ChangelogSyncError} `E_USAGE` from {@link selectWorkspaces}.
 */
export async function runEachWorkspace(workspaces: WorkspaceEntry[], config: Config, reporter: Reporter, debug: boolean, body: WorkspaceBody): Promise<EachWorkspaceRun> {
  const codes: ExitCode[] = [];
  const results: Record<string, unknown> = {};
  for (const w of workspaces) {
    if (stopReceived()) break;
    // Lines name their workspace when there are several in the run.
    const own = reporter.forWorkspace(w.key, workspaces.length > 1);
    try {
      codes.push(await body(workspaceConfig(config, w), own));
    } catch (err) {
      codes.push(handleError(err, own, debug, w.tokenEnv));
    }
    if (reporter.json) results[w.key] = own.kept;
  }
  return { code: worstExit(codes), results };
}

/** What a run over workspaces may be restricted to ({@link eachWorkspace}). */
export interface EachWorkspaceLimits {
  /** Why the command writes one workspace's output only (a CSV): with several, `--workspace` is required. */
  oneOnly?: string;
  /** Files named on the command line: each workspace gets its own, a workspace with none is not run. */
  files?: string[];
}

/**
 * A command on every workspace, or the selected one: {@link runEachWorkspace}, with `--json` one
 * document `{ "workspaces": { "<key>": <the command's result> } }`. Without `workspaces` in the
 * configuration (and no `selected`): `body` on the configuration, as it is.
 * @throws {ChangelogSyncError} `E_USAGE` for an unknown `selected`, for several workspaces without
 *   one selected under `oneOnly`, or for a file in no workspace's folder.
 */
export async function eachWorkspace(config: Config, reporter: Reporter, selected: string | undefined, debug: boolean, body: WorkspaceBody, limits: EachWorkspaceLimits = {}): Promise<ExitCode> {
  let workspaces = selectWorkspaces(config, selected);
  if (!workspaces) return body(config, reporter);
  if (limits.oneOnly && workspaces.length > 1) {
    const keys = workspaces.map((w) => w.key).join(', ');
    throw new ChangelogSyncError('E_USAGE', `${limits.oneOnly} one workspace's only: name it with --workspace <key> (the workspaces are ${keys})`, { hint: `e.g. --workspace ${workspaces[0]!.key}` });
  }
  if (limits.files?.length) workspaces = workspacesOfFiles(config, workspaces, limits.files);
  const run = await runEachWorkspace(workspaces, config, reporter, debug, body);
  reporter.result('', { workspaces: run.results });
  return run.code;
}

/**
 * The workspaces whose folders hold the files (relative to `Config.cwd` or absolute).
 * @throws {ChangelogSyncError} `E_USAGE` naming a file in none of them.
 */
function workspacesOfFiles(config: Config, workspaces: WorkspaceEntry[], files: string[]): WorkspaceEntry[] {
  const stray = files.find((f) => !workspaces.some((w) => workspaceFiles(config, w, [f]).length > 0));
  if (stray !== undefined) {
    throw new ChangelogSyncError('E_USAGE', `${stray} is in no workspace's folder: the workspaces' folders are ${workspaces.map((w) => relative(config.cwd, w.contentDir)).join(', ')}`, { hint: 'name files under <contentDir>/<key>/entries/' });
  }
  return workspaces.filter((w) => workspaceFiles(config, w, files).length > 0);
}

/** The files (relative to `Config.cwd` or absolute) in a workspace's folder; all of them without one. */
export function workspaceFiles(config: Pick<Config, 'cwd'>, workspace: Pick<WorkspaceEntry, 'contentDir'> | undefined, files: string[]): string[] {
  return workspace ? files.filter((f) => !relative(workspace.contentDir, resolve(config.cwd, f)).startsWith('..')) : files;
}
