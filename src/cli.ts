#!/usr/bin/env node
/**
 * The command line: declares commands and options only. Each command is a function in
 * src/commands/ that tests call directly; errors are mapped once, in handleError.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ChangelogSyncError } from './api/errors.js';
import { buildCommand } from './commands/build.js';
import { emulatorCommand } from './commands/emulator.js';
import { pullCommand } from './commands/pull.js';
import { pushCommand } from './commands/push.js';
import { syncCommand } from './commands/sync.js';
import { loadConfig, type Config } from './config.js';
import { EXIT } from './output/exit-codes.js';
import { handleError } from './output/handle-error.js';
import { Reporter } from './output/reporter.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

interface GlobalOptions {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  debug?: boolean;
}

const program = new Command('changelog-sync')
  .description('Keep a hosted changelog in git: mirror entries as Markdown, push new ones, build a static site.')
  .version(pkg.version)
  .option('--json', 'print the result as one JSON document on stdout (logs go to stderr)')
  .option('-q, --quiet', 'print only the result and errors')
  .option('-v, --verbose', 'print every request')
  .option('--debug', 'print stacks of errors')
  .showHelpAfterError()
  .exitOverride();

function globals(): GlobalOptions {
  return program.opts<GlobalOptions>();
}

function reporterFor(config?: Config): Reporter {
  const g = globals();
  return new Reporter({ json: g.json, quiet: g.quiet, verbose: g.verbose, secrets: config?.token ? [config.token] : [] });
}

/** Runs a command body with the configuration and the top-level error handler. */
function run(body: (config: Config, reporter: Reporter) => Promise<number>): () => Promise<void> {
  return async () => {
    let reporter = reporterFor();
    try {
      const config = loadConfig();
      reporter = reporterFor(config);
      process.exitCode = await body(config, reporter);
    } catch (err) {
      process.exitCode = handleError(err, reporter, globals().debug);
    }
  };
}

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};

program
  .command('sync')
  .description('pull, push and build: the main job (the demo against the built-in emulator when no service is configured)')
  .option('--dry-run', 'print what pull and push would do; change nothing')
  .option('--prune', 'remove files whose remote entry is gone')
  .option('--demo', 'run the demo even when a service is configured')
  .action((opts: { dryRun?: boolean; prune?: boolean; demo?: boolean }) => run((c, r) => syncCommand(c, r, opts))());

program
  .command('pull')
  .description('mirror entries, tags and workspace settings into the content directory')
  .option('--dry-run', 'print what would change; write nothing')
  .option('--prune', 'remove files whose remote entry is gone (never a locally edited one)')
  .action((opts: { dryRun?: boolean; prune?: boolean }) => run((c, r) => pullCommand(c, r, opts))());

program
  .command('push')
  .description('create remote entries from new local files (files without identifier)')
  .option('--dry-run', 'print the plan (files, order, requests, timing); send nothing')
  .action((opts: { dryRun?: boolean }) => run((c, r) => pushCommand(c, r, opts))());

program
  .command('build')
  .description('build the static site from the content directory into the output directory')
  .option('--allow-private', 'build even when the workspace is private (is_public 0)')
  .action((opts: { allowPrivate?: boolean }) => run((c, r) => buildCommand(c, r, opts))());

program
  .command('emulator')
  .description('run the local emulator of the changelog service until Ctrl-C')
  .option('-p, --port <n>', 'port (0 picks a free one)', positiveInt('--port'), 0)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--seed <demo|file>', 'seed the emulator: "demo" or a seed JSON file')
  .addOption(new Option('--per-minute <n>', 'requests per window per workspace').argParser(positiveInt('--per-minute')))
  .addOption(new Option('--per-day <n>', 'requests per day per workspace').argParser(positiveInt('--per-day')))
  .addOption(new Option('--window-ms <n>', 'length of the per-minute window in ms').argParser(positiveInt('--window-ms')))
  .action((opts: { port: number; host: string; seed?: string; perMinute?: number; perDay?: number; windowMs?: number }) =>
    run((_c, r) =>
      emulatorCommand(r, { port: opts.port, host: opts.host, seed: opts.seed, limits: { perMinute: opts.perMinute, perDay: opts.perDay, windowMs: opts.windowMs } }),
    )(),
  );

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // commander's own exits (help, version, usage errors) arrive here with exitOverride.
  const e = err as { code?: string; exitCode?: number };
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') process.exitCode = EXIT.OK;
  else if (typeof e.code === 'string' && e.code.startsWith('commander.')) process.exitCode = EXIT.USAGE;
  else process.exitCode = handleError(err instanceof ChangelogSyncError ? err : err, reporterFor(), globals().debug);
}
