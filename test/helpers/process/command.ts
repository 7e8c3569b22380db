// A command function (src/cli/commands/, src/cli/subscribers/) run in the test's own process as
// the CLI's `run` runs it: the configuration loaded from the folder and the environment, a
// Reporter with the global options, errors mapped to an exit code by handleError. No process
// is started and nothing is loaded twice, so it costs a fraction of a real CLI run (runCli,
// helpers/process/cli.ts), which the tests keep for what only a process shows: argument parsing,
// --help, a signal, the installed tool.
import type { Config } from '../../../src/core/config.js';
import { loadConfig } from '../../../src/core/config.js';
import { handleError } from '../../../src/cli/output/handle-error.js';
import type { Reporter } from '../../../src/cli/output/reporter.js';
import type { CliResult } from './cli.js';
import { captureReporter } from './reporter.js';

/** Where and how a command runs: as runCli's options, and the CLI's global options. */
export interface CommandOptions {
  /** The working directory the command is given (the project), absolute. */
  cwd: string;
  /** The environment besides this process's, CHANGELOG_* and GITHUB_* removed from it as runCli does. */
  env?: Record<string, string | undefined>;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  debug?: boolean;
}

/**
 * Runs `body` as `changelog-sync <command>` would run it in `options.cwd` with `options.env`,
 * and resolves with its exit code and what it printed (as {@link CliResult}, never a signal).
 * The working directory and the environment are handed to the command as the CLI's entry
 * hands them (the configuration's `cwd` and `env`, the reporter's): this process's own are
 * neither changed nor read by the command.
 */
export async function runCommand(body: (config: Config, reporter: Reporter) => Promise<number>, options: CommandOptions): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  Object.assign(env, { NO_COLOR: '1' }, options.env ?? {});
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const global = { json: options.json, quiet: options.quiet, verbose: options.verbose, env, cwd: options.cwd };
  let captured = captureReporter(global);
  let code: number;
  try {
    const config = loadConfig(options.cwd, env, options.cwd);
    captured = captureReporter({ ...global, secrets: config.token ? [config.token] : [] });
    code = await body(config, captured.reporter);
  } catch (err) {
    code = handleError(err, captured.reporter, options.debug);
  }
  return { code, signal: null, stdout: captured.out(), stderr: captured.err() };
}
