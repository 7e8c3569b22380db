#!/usr/bin/env node
/**
 * The command line: commands and options only. Each command is a function in src/cli/commands/
 * (src/cli/subscribers/) that calls the engine and returns its exit code after its report; what
 * commands share is in src/cli/ and src/cli/steps/ (test/cli/steps/). Errors are mapped once, in
 * handleError. Commands are imported when they run, so `--help` loads no Eleventy.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { EmulatorCommandOptions } from './cli/commands/emulator.js';
import type { EachWorkspaceLimits } from './cli/workspaces.js';
import { loadConfig, toolVersion, workspaceConfig, type Config } from './core/config.js';
import { CREATE_RESPONSE_SHAPES } from './emulator/faults.js';
import { EXIT, type ExitCode } from './cli/output/exit-codes.js';
import { handleError } from './cli/output/handle-error.js';
import { Reporter } from './cli/output/reporter.js';
import { endIfStopped } from './cli/stop-signals.js';
import { requireWorkflowVersion } from './cli/workflow-version.js';


interface GlobalOptions {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  debug?: boolean;
}

const program = new Command('changelog-sync')
  .description('Keep a hosted changelog in git: mirror entries as Markdown, push new ones, build a static site.')
  .version(toolVersion())
  .option('--json', 'print the result as one JSON document on stdout (logs go to stderr)')
  .option('-q, --quiet', 'print only the result and errors')
  .option('-v, --verbose', 'print every request')
  .option('--debug', 'print stacks of errors')
  .showHelpAfterError()
  .exitOverride();

function globals(): GlobalOptions {
  return program.opts<GlobalOptions>();
}

/**
 * The process's environment, read here once; {@link run} reads its working directory (a folder
 * removed under the shell is an error like any other). Nothing else of src/ reads either
 * (test/repo/process-reads.test.ts): the rest gets them from `Config.cwd`, `Config.env`.
 */
const startEnv: NodeJS.ProcessEnv = { ...process.env };

function reporterFor(config?: Config): Reporter {
  const g = globals();
  const secrets = [config?.token, ...(config?.workspaces ?? []).map((w) => w.token)].filter((t) => t !== undefined);
  return new Reporter({ json: g.json, quiet: g.quiet, verbose: g.verbose, secrets, env: startEnv, cwd: config?.cwd });
}

/**
 * Eleventy's ESM resolver re-imports changed modules for a watching Eleventy, which one build
 * (`build`, `sync`) does not need; on Node 20 it starts a loader thread every later import waits
 * on. Eleventy reads the switch from the process's environment as it loads (11ty/eleventy#3371),
 * so it is set here, before the build imports it; `dev` keeps the resolver.
 */
function skipEleventyEsmResolver(): void {
  process.env.ELEVENTY_SKIP_ESM_RESOLVER ??= '1';
}

/** Runs a command body with the configuration (which carries the working directory and environment) and the top-level error handler. */
async function run(body: (config: Config, reporter: Reporter) => Promise<number>): Promise<void> {
  let reporter = reporterFor();
  try {
    // First: a workflow of another major version than this CLI is the cause of whatever else would fail.
    requireWorkflowVersion(reporter, toolVersion(), startEnv);
    const cwd = process.cwd();
    const config = loadConfig(cwd, startEnv, cwd);
    reporter = reporterFor(config);
    process.exitCode = await body(config, reporter);
  } catch (err) {
    process.exitCode = handleError(err, reporter, globals().debug);
  }
  // Told to stop (SIGTERM, SIGINT) while it sent: its report is out, its status tells the signal.
  endIfStopped();
}

/** `--workspace <key>` of the commands that act on every workspace of `changelog.config.json` (src/cli/workspaces.ts). */
const workspaceOption = () => new Option('--workspace <key>', 'act on this workspace only (changelog.config.json "workspaces"); default: every one, in order');

/** {@link run} of a command body on every selected workspace (src/cli/workspaces.ts), or on the configuration as it is without `workspaces`. */
function runEach(selected: string | undefined, body: (config: Config, reporter: Reporter) => Promise<ExitCode>, limits?: EachWorkspaceLimits): Promise<void> {
  return run(async (c, r) => (await import('./cli/workspaces.js')).eachWorkspace(c, r, selected, globals().debug ?? false, body, limits));
}

/** Examples shown after a command's --help. */
function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

const positiveInt = (name: string, min = 0) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
  return n;
};
const fraction = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
  return n;
};

program
  .command('sync')
  .description('pull, push and build: the main job (the demo against the built-in emulator when no service is configured)')
  .option('--dry-run', 'print what pull and push would do; change nothing')
  .option('--prune', 'remove files whose remote entry is gone')
  .option('--force', 'with --prune: remove even when the listing is empty or more than a tenth of the mirror is gone')
  .option('--demo', 'run the demo even when a service is configured')
  .option('--skip-build', 'pull and push only')
  .option('--no-cache', 'build without the build cache: render every entry again (README, "The site")')
  .option('--allow-private', 'build even when the workspace is private (is_public 0)')
  .option('--no-lease', 'take no push lease on the git remote: at most once per directory only (when origin cannot be read and no other clone pushes)')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync sync', 'changelog-sync sync --dry-run', 'CHANGELOG_TOKEN=... changelog-sync --json sync > result.json'))
  .action((opts: { dryRun?: boolean; prune?: boolean; force?: boolean; demo?: boolean; skipBuild?: boolean; allowPrivate?: boolean; cache?: boolean; lease?: boolean; workspace?: string }) =>
    run(async (c, r) => {
      skipEleventyEsmResolver();
      const { syncCommand, syncWorkspaces } = await import('./cli/commands/sync.js');
      const options = { ...opts, noCache: opts.cache === false, noLease: opts.lease === false };
      const workspaces = opts.demo ? undefined : (await import('./cli/workspaces.js')).selectWorkspaces(c, opts.workspace);
      return workspaces ? syncWorkspaces(c, r, workspaces, options, globals().debug ?? false) : syncCommand(c, r, options);
    }),
  );

program
  .command('pull')
  .description('mirror entries, tags and workspace settings into the content directory')
  .option('--dry-run', 'print what would change; write nothing')
  .option('--prune', 'remove files whose remote entry is gone (never a locally edited one)')
  .option('--force', 'with --prune: remove even when the listing is empty or more than a tenth of the mirror is gone')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync pull', 'changelog-sync pull --dry-run', 'changelog-sync pull --prune'))
  .action((opts: { dryRun?: boolean; prune?: boolean; force?: boolean; workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/commands/pull.js')).pullCommand(c, r, opts)));

program
  .command('push')
  .description('create remote entries from new local files (files without identifier)')
  .option('--dry-run', 'print the plan (files, order, requests, timing); send nothing')
  .option('--no-lease', 'take no push lease on the git remote: at most once per directory only (when origin cannot be read and no other clone pushes)')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync push --dry-run', 'changelog-sync push'))
  .action((opts: { dryRun?: boolean; lease?: boolean; workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/commands/push.js')).pushCommand(c, r, { dryRun: opts.dryRun, noLease: opts.lease === false })));

program
  .command('status')
  .description('read-only: what pull and push would do now (remote-only, conflicts, local edits, new local entries, deferred)')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync status', 'changelog-sync --json status'))
  .action((opts: { workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/commands/status.js')).statusCommand(c, r)));

program
  .command('check')
  .description('validate local entry files without the network (for pull-request checks); exit 5 on errors')
  .argument('[files...]', 'files to check (default: every entry file)')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync check', 'changelog-sync check content/entries/2026-11-22-faster-exports.md'))
  .action((files: string[], opts: { workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/commands/check.js')).checkCommand(c, r, (await import('./cli/workspaces.js')).workspaceFiles(c, c.workspace, files)), { files }));

program
  .command('commit-back')
  .description('commit the mirror and its state and push, rebasing and retrying when the branch moved (the scheduled workflow)')
  .argument('[paths...]', 'what to commit (default: the content and state directories)')
  .option('-m, --message <text>', 'commit message (default "changelog: sync from the service [skip ci]")')
  .option('--attempts <n>', 'pushes to try at most', positiveInt('--attempts'), 4)
  .option('--retry-delay <ms>', 'pause before retry n >= 2 is n - 1 times this', positiveInt('--retry-delay'), 2000)
  .option('--forget-site-build', "remove the record of the last site build first (its deployment failed: the next run builds again)")
  .option('--dry-run', 'list what would be committed; stage, commit and push nothing')
  .addHelpText('after', examples('changelog-sync commit-back', 'changelog-sync commit-back --dry-run', 'changelog-sync commit-back --forget-site-build'))
  .action((paths: string[], opts: { message?: string; attempts?: number; retryDelay?: number; dryRun?: boolean; forgetSiteBuild?: boolean }) =>
    run(async (c, r) => (await import('./cli/commands/commit-back.js')).commitBackCommand(c, r, paths, opts)),
  );

program
  .command('build')
  .description('build the static site from the content directory into the output directory')
  .option('--allow-private', 'build even when the workspace is private (is_public 0)')
  .option('--no-cache', 'build without the build cache: render every entry again (README, "The site")')
  .addHelpText('after', examples('changelog-sync build', 'CHANGELOG_SITE_URL=https://changelog.example.com/ changelog-sync build', 'changelog-sync build --allow-private'))
  .action((opts: { allowPrivate?: boolean; cache?: boolean }) =>
    run(async (c, r) => {
      skipEleventyEsmResolver();
      return (await import('./cli/commands/build.js')).buildCommand(c, r, { allowPrivate: opts.allowPrivate, noCache: opts.cache === false });
    }),
  );

program
  .command('emulator')
  .description('run the local emulator of the changelog service until Ctrl-C')
  .option('-p, --port <n>', 'port (0 picks a free one)', positiveInt('--port'), 0)
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--seed <demo|file|folder>', 'seed the emulator: "demo" (two products, a workspace and token each), a seed JSON file, or a folder of entry files (Markdown with frontmatter)')
  .addOption(new Option('--per-minute <n>', 'requests per window per workspace').argParser(positiveInt('--per-minute')))
  .addOption(new Option('--per-day <n>', 'requests per day per workspace').argParser(positiveInt('--per-day')))
  .addOption(new Option('--window-ms <n>', 'length of the per-minute window in ms').argParser(positiveInt('--window-ms')))
  .addOption(new Option('--day-ms <n>', 'length of the per-day window in ms').argParser(positiveInt('--day-ms')))
  .addOption(new Option('--drop-after-commit-every <n>', 'fault: drop the connection after committing every Nth POST /api/entry').argParser(positiveInt('--drop-after-commit-every')))
  .addOption(new Option('--drop-after-commit-probability <p>', 'fault: drop the connection after committing a POST /api/entry with probability p').argParser(fraction('--drop-after-commit-probability')))
  .addOption(new Option('--server-error-rate <p>', 'fault: answer this fraction of API requests with a 500').argParser(fraction('--server-error-rate')))
  .addOption(new Option('--error-after-commit-every <n>', 'fault: answer every Nth POST /api/entry with a 500 after committing it').argParser(positiveInt('--error-after-commit-every')))
  .addOption(new Option('--latency-ms <n>', 'fault: delay every API answer by n ms').argParser(positiveInt('--latency-ms')))
  .addOption(new Option('--rate-limit-burst <n>', 'fault: answer the next n API requests with 429').argParser(positiveInt('--rate-limit-burst')))
  .addOption(new Option('--rate-limit-burst-retry-after <s>', 'Retry-After seconds of the injected 429s (default 1)').argParser(positiveInt('--rate-limit-burst-retry-after')))
  .option('--rate-limit-burst-no-retry-after', 'send the injected 429s without Retry-After')
  .addOption(new Option('--day-limit-retry-after <s>', 'fault: Retry-After seconds of the 429s of the per-day limit').argParser(positiveInt('--day-limit-retry-after')))
  .option('--rate-limit-limit-header <text>', 'fault: send this as x-ratelimit-limit')
  .option('--rate-limit-remaining-header <text>', 'fault: send this as x-ratelimit-remaining')
  .option('--html-body', 'fault: answer API requests with an HTML page')
  .option('--malformed-json', 'fault: answer API requests with malformed JSON')
  .addOption(new Option('--oversize-body-mb <n>', 'fault: answer API requests with a JSON body of n MB').argParser(positiveInt('--oversize-body-mb')))
  .option('--oversize-body-chunked', 'send the oversize body without Content-Length')
  .addOption(new Option('--create-response <shape>', 'what POST /api/entry answers').choices(CREATE_RESPONSE_SHAPES))
  .addOption(new Option('--stall-create-every <n>', 'fault: hold every Nth POST /api/entry for --stall-ms').argParser(positiveInt('--stall-create-every')))
  .addOption(new Option('--stall-ms <n>', 'how long a stalled create is held (default 1000)').argParser(positiveInt('--stall-ms')))
  .option('--stall-after-commit', 'stall after committing the entry instead of before')
  .option('--request-log <file>', 'append every request (time, method, path, status, ...) to this file as JSON lines')
  .addHelpText(
    'after',
    examples('changelog-sync emulator --port 4010 --seed demo', 'changelog-sync emulator --seed my-seed.json --per-minute 5', 'changelog-sync emulator --drop-after-commit-every 3 --latency-ms 200 --request-log requests.jsonl'),
  )
  .action((opts: EmulatorCommandOptions) => run(async (c, r) => (await import('./cli/commands/emulator.js')).emulatorCommand(r, opts, c.cwd)));

program
  .command('new')
  .description('create a new entry file from a template, correctly named')
  .argument('<title>', 'the entry title')
  .option('--date <YYYY-MM-DD>', 'publication date (default: today)')
  .option('--slug <slug>', 'slug (default: derived from the title)')
  .option('--draft', 'create it as a draft (is_published: false)')
  .option('--tags <list>', 'comma-separated tags', (v: string) => v.split(',').map((t) => t.trim()).filter(Boolean))
  .option('--notify', 'mail subscribers when it is published (notify_subscribers: true)')
  .option('--dry-run', 'print the file; write nothing')
  .addOption(new Option('--workspace <key>', 'the workspace the entry is for (changelog.config.json "workspaces"; required with several)'))
  .addHelpText('after', examples('changelog-sync new "Faster exports"', 'changelog-sync new "Q3 security fixes" --date 2026-12-01 --tags Security,Fix', 'changelog-sync new "Webhooks" --workspace api'))
  .action((title: string, opts: { date?: string; slug?: string; draft?: boolean; tags?: string[]; notify?: boolean; dryRun?: boolean; workspace?: string }) =>
    runEach(opts.workspace, async (c, r) => (await import('./cli/commands/new.js')).newCommand(c, r, title, opts), { oneOnly: 'new writes an entry into' }),
  );

program
  .command('dev')
  .description('live preview: serve the site with live reload, validate entry files on save (never pushes)')
  .option('-p, --port <n>', 'first port to try', positiveInt('--port'), 8080)
  .option('--pull', 'pull once before serving (needs CHANGELOG_TOKEN; without it, dev previews content/ as it is)')
  .option('--demo', 'preview the demo workspace even when there is content')
  .addOption(new Option('--workspace <key>', 'the workspace to preview (changelog.config.json "workspaces"; default the first)'))
  .addHelpText('after', examples('changelog-sync dev', 'changelog-sync dev --pull', 'changelog-sync dev --demo --port 3000', 'changelog-sync dev --workspace api'))
  .action((opts: { port: number; pull?: boolean; demo?: boolean; workspace?: string }) =>
    run(async (c, r) => {
      const { devCommand } = await import('./cli/commands/dev.js');
      if (opts.demo || !c.workspaces) return devCommand(c, r, opts);
      // The preview is of one product's site: the one named, else the first.
      const { selectWorkspaces } = await import('./cli/workspaces.js');
      const [w] = selectWorkspaces(c, opts.workspace ?? c.workspaces[0]!.key)!;
      if (!opts.workspace) r.info(`Previewing workspace "${w!.key}" (of ${c.workspaces.map((x) => x.key).join(', ')}): --workspace <key> for another`);
      return devCommand(workspaceConfig(c, w!), r, opts);
    }),
  );

program
  .command('init')
  .description("make this repository a team's changelog repository: package.json, changelog.config.json, the GitHub workflows, Dependabot and .gitignore lines (never overwrites)")
  .option('--dry-run', 'print what would be added; write nothing')
  .option('--templates', "also copy the site's templates into site/, to override them")
  .addOption(new Option('--workspace <key>', 'add a product: its workspace to changelog.config.json and its secret to the scheduled workflow (docs/sync.md "Adding a product")'))
  .addOption(new Option('--first <key>', "with --workspace in a repository of one workspace: the key that workspace gets as the first product (default: its name)"))
  .addHelpText('after', examples('changelog-sync init', 'changelog-sync init --dry-run', 'changelog-sync init --templates', 'npx changelog-sync@latest init', 'changelog-sync init --workspace api --dry-run'))
  .action((opts: { dryRun?: boolean; templates?: boolean; workspace?: string; first?: string }) =>
    run(async (c, r) => {
      if (opts.workspace === undefined) {
        if (opts.first !== undefined) {
          const { ChangelogSyncError } = await import('./core/errors.js');
          throw new ChangelogSyncError('E_USAGE', '--first names the first product when a product is added: it goes with --workspace <key>', { field: '--first', hint: 'add --workspace <key>, or leave out --first' });
        }
        return (await import('./cli/commands/init.js')).initCommand(c, r, opts);
      }
      return (await import('./cli/workspace-addition.js')).addWorkspaceCommand(c, r, { key: opts.workspace, first: opts.first, dryRun: opts.dryRun });
    }),
  );

program
  .command('latest')
  .description("print a workspace's latest published entry from the public endpoint (no token needed)")
  .argument('<workspace-uuid>', 'the workspace identifier, shown in the workspace settings')
  .option('--base-url <url>', 'service root (default: CHANGELOG_BASE_URL)')
  .addHelpText('after', examples('changelog-sync latest 9f0c2a4e-5b1d-4c7e-8a3f-2d6e1b0c9a57', 'changelog-sync --json latest 9f0c2a4e-5b1d-4c7e-8a3f-2d6e1b0c9a57'))
  .action((uuid: string, opts: { baseUrl?: string }) => run(async (c, r) => (await import('./cli/commands/latest.js')).latestCommand(c, r, uuid, opts)));

program.addHelpText(
  'after',
  `
Exit codes: 0 ok, 1 error, 2 usage, 3 conflicts, 4 deferred to the next run, 5 invalid files.
Configuration: CHANGELOG_BASE_URL, CHANGELOG_TOKEN (environment only) and changelog.config.json; see README.md.
With nothing configured, \`sync\` runs a demo against the built-in emulator.
`,
);

// Subscribers: list, import from CSV, remove, export.
const batchSizeOption = () =>
  new Option('--batch-size <n>', "subscribers per request (default 100, raised when needed to fit the day's request budget)").argParser(positiveInt('--batch-size', 1));

const subscribers = program
  .command('subscribers')
  .description('list, import, remove and export subscribers (addresses are masked in GitHub Actions output)')
  .addHelpText('after', examples('changelog-sync subscribers list', 'changelog-sync subscribers import list.csv --verified-column confirmed_at --dry-run', 'changelog-sync subscribers export --out ~/subscribers.csv'));

subscribers
  .command('list')
  .description('list every subscriber: a table, one JSON document with --json, or CSV with --csv')
  .option('--csv', 'print CSV with a header row (formula-injection safe) on stdout')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync subscribers list', 'changelog-sync subscribers list --json > subscribers.json', 'changelog-sync subscribers list --csv'))
  .action((opts: { csv?: boolean; workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/subscribers/list.js')).subscribersListCommand(c, r, opts), { oneOnly: opts.csv ? 'list --csv writes' : undefined }));

subscribers
  .command('import')
  .description('add the people of a CSV file as subscribers (duplicates and existing subscribers skipped)')
  .argument('<file>', 'CSV file, UTF-8, comma or semicolon, with a header row: email | Email Address | E-mail, and name | First Name + Last Name')
  .option('--dry-run', 'read the subscriber list and the file and print the plan; send nothing that changes anything')
  .addOption(batchSizeOption())
  .option('--verified-column <header>', 'the column that records when each person confirmed their subscription (e.g. confirmed_at), sent as verified_at')
  .option('--verified-at <today|YYYY-MM-DD>', 'declare the verification date of rows without one; without it such rows are refused, because the service would record them as verified today')
  .addHelpText(
    'after',
    examples(
      'changelog-sync subscribers import list.csv --verified-column confirmed_at --dry-run',
      'changelog-sync subscribers import list.csv --verified-column confirmed_at',
      'changelog-sync subscribers import double-opt-in.csv --verified-at 2024-05-06',
    ),
  )
  .addOption(workspaceOption())
  .action((file: string, opts: { dryRun?: boolean; batchSize?: number; verifiedColumn?: string; verifiedAt?: string; workspace?: string }) =>
    runEach(opts.workspace, async (c, r) => (await import('./cli/subscribers/import.js')).subscribersImportCommand(c, r, { file, ...opts })),
  );

subscribers
  .command('remove')
  .description('delete subscribers by address; reports the removed ones and the ones not found')
  .argument('[emails...]', 'addresses to remove')
  .option('--file <file.csv>', 'remove the addresses of a CSV file (its email column) instead')
  .option('--dry-run', 'read the subscriber list and print what would be removed; send no DELETE')
  .addOption(batchSizeOption())
  .addHelpText('after', examples('changelog-sync subscribers remove ada@example.com grace@example.org', 'changelog-sync subscribers remove --file unsubscribed.csv --dry-run'))
  .addOption(workspaceOption())
  .action((emails: string[], opts: { file?: string; dryRun?: boolean; batchSize?: number; workspace?: string }) =>
    runEach(opts.workspace, async (c, r) => (await import('./cli/subscribers/remove.js')).subscribersRemoveCommand(c, r, { emails, ...opts })),
  );

subscribers
  .command('export')
  .description('every subscriber as CSV with a header row, safe to open in a spreadsheet')
  .option('--out <file.csv>', 'write to this file (atomically, readable by you only) instead of stdout; never inside content/, the site or .changelog/')
  .addOption(workspaceOption())
  .addHelpText('after', examples('changelog-sync subscribers export --out ~/subscribers.csv', 'changelog-sync subscribers export > subscribers.csv'))
  .action((opts: { out?: string; workspace?: string }) => runEach(opts.workspace, async (c, r) => (await import('./cli/subscribers/export.js')).subscribersExportCommand(c, r, opts), { oneOnly: 'export writes' }));

// A reader that closed its end (`--help | head`) is no error: the work goes on, its output dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // commander's own exits (help, version, usage errors) arrive here with exitOverride.
  const e = err as { code?: string; exitCode?: number };
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') process.exitCode = EXIT.OK;
  else if (typeof e.code === 'string' && e.code.startsWith('commander.')) process.exitCode = EXIT.USAGE;
  else process.exitCode = handleError(err, reporterFor(), globals().debug);
}
