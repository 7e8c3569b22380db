/**
 * `changelog-sync sync [--dry-run] [--demo] [--no-lease]`: pull, push, build. SIGTERM and SIGINT
 * stop it once the POSTs in flight settled, without the build (`stop-signals.ts`). With no
 * service configured it runs the demo (the built-in emulator, two products, everything under `.demo/`), but
 * never in GitHub Actions unless `--demo`: a missing secret fails the job (`actions-secrets.ts`).
 */
import { relative } from 'node:path';
import type { Config, WorkspaceEntry } from '../../core/config.js';
import type { PullResult } from '../../sync/pull/pull-run.js';
import type { PushResult } from '../../sync/push/push-run.js';
import { syncWorkspace } from '../../sync/sync-job.js';
import { worstExit, type ExitCode } from '../output/exit-codes.js';
import { markdownCode, markdownText, setStepOutput } from '../output/github-actions.js';
import type { Reporter } from '../output/reporter.js';
import { commandLine } from '../../core/project-command.js';
import type { BuildResult } from '../../site/pipeline/build.js';
import type { SiteChange } from '../../site/pipeline/build-inputs.js';
import { requireServiceInActions } from '../actions-secrets.js';
import { withContext } from '../context.js';
import { isDemo, startDemo } from '../demo.js';
import { buildExitCode, buildWithProgress, formatBuild, reportSiteChange, requireSiteUrlInCi } from '../steps/build-step.js';
import { formatPull, pullExitCode } from '../steps/pull-step.js';
import { engineOptions, type BuildCall, type PullCall, type PushCall } from '../../options/engine-options.js';
import { formatPush, pushProgress, NO_LEASE_WARNING, pushExitCode, reportRejected, withStoppedPushReport } from '../steps/push-step.js';
import { listenForStop, stopReceived } from '../stop-signals.js';
import { runEachWorkspace } from '../workspaces.js';

/** Options of {@link syncCommand}: pull's, push's and the build's, and two of its own. */
export type SyncCommandOptions = Pick<PullCall, 'dryRun' | 'prune' | 'force'> & Pick<PushCall, 'noLease'> & Pick<BuildCall, 'allowPrivate' | 'noCache'> & {
  /** Force the demo even when a service is configured. */
  demo?: boolean;
  /** Pull and push only (the scheduled workflow builds in a later step). */
  skipBuild?: boolean;
};

/** Pull, push and build against the configured service (or the demo, see the module doc). */
export async function syncCommand(config: Config, reporter: Reporter, options: SyncCommandOptions = {}): Promise<ExitCode> {
  // In GitHub Actions a missing secret or variable fails the job: never the demo (unless asked for).
  if (!options.demo) requireServiceInActions(config, reporter);
  if (options.demo || isDemo(config)) return demoSync(config, reporter, options);
  // A sync's build in GitHub Actions deploys (needs the site URL, records its inputs).
  if (!options.skipBuild && !options.dryRun) requireSiteUrlInCi(config);
  return (await runSync(config, reporter, options)).code;
}

/**
 * `sync` over the workspaces of `changelog.config.json` (src/cli/workspaces.ts), all or the
 * selected one: each pulled and pushed as its own (a failed one keeps its last mirror and is
 * reported), then one build with what there is, whichever failed. With `--json`:
 * `{ "workspaces": { "<key>": <its sync result> }, "site", "build" }`.
 * @param debug `--debug`: stacks of a workspace's error.
 * @throws {ChangelogSyncError} `E_USAGE` for an unknown `--workspace`; the build's errors.
 */
export async function syncWorkspaces(config: Config, reporter: Reporter, workspaces: WorkspaceEntry[], options: SyncCommandOptions, debug: boolean): Promise<ExitCode> {
  const dryRun = options.dryRun ?? false;
  if (!options.skipBuild && !dryRun) requireSiteUrlInCi(config);
  let awaitingImages = false;
  const run = await runEachWorkspace(workspaces, config, reporter, debug, async (c, r) => {
    requireServiceInActions(c, r);
    const synced = await runSync(c, r, { ...options, skipBuild: true });
    awaitingImages ||= synced.awaitingImages;
    return synced.code;
  });
  let built: BuildResult | undefined;
  let site: SiteChange | undefined;
  if (!dryRun) {
    site = await reportSiteChange(config, reporter);
    setStepOutput('awaiting_images', String(awaitingImages), config.env);
    // One workspace's failure does not stop the build: the site is built with every mirror as it is.
    if (!options.skipBuild && !stopReceived()) {
      built = await buildWithProgress(config, reporter, { allowPrivate: options.allowPrivate, noCache: options.noCache, inputs: site.inputs });
      reporter.info(formatBuild(built, config.cwd));
    }
  }
  reporter.result(built ? `Built ${built.pages} pages in ${relative(config.cwd, built.outputDir) || '.'}` : '', { workspaces: run.results, site: site && { changed: site.changed, reason: site.reason }, build: built });
  return worstExit([run.code, ...(built ? [buildExitCode(built)] : [])]);
}

async function runSync(config: Config, reporter: Reporter, options: SyncCommandOptions): Promise<{ code: ExitCode; awaitingImages: boolean }> {
  const dryRun = options.dryRun ?? false;
  if (options.noLease) reporter.warn(NO_LEASE_WARNING);
  return withContext(config, reporter, { dryRun }, async (client) => {
    const stop = dryRun ? undefined : listenForStop(reporter, 'the pull ends, the POSTs in flight settle, no other is sent, the push lease is released, no site is built');
    try {
      reporter.info(`Pulling from ${config.baseUrl} ...`);
      const pullBar = reporter.counter('pull');
      const pushBar = reporter.counter('push');
      /** The pull stage's result, for the report of a push an error stopped. */
      let pullStage: PullResult | undefined;
      // One job (src/sync/sync-job.ts): one lock from the pull through the push, the workspace and
      // the listing read once; the project's paths checked once, for the build too.
      const job = await syncWorkspace({
        client,
        contentDir: config.contentDir,
        stateDir: config.stateDir,
        dryRun,
        project: config,
        pull: engineOptions.pull(config, { prune: options.prune, force: options.force, onConverted: pullBar.update }),
        push: engineOptions.push(config, { noLease: options.noLease, signal: stop?.signal, ...pushProgress(reporter, pushBar) }),
        onPulled: (r) => {
          pullStage = r;
          pullBar.stop();
          reporter.info(formatPull(r));
          reporter.info('Pushing new local entries ...');
        },
      })
        .catch((err: unknown) => {
          throw pullStage ? withStoppedPushReport(err, (r) => ({ command: 'sync', pull: pullStage, push: r })) : err;
        })
        .finally(() => {
          pullBar.stop();
          pushBar.stop();
          // The build that follows stops as any process does: at once.
          stop?.dispose();
        });
      const { pull: pulled, push: pushed } = job;
      reporter.info(formatPush(pushed));
      let built;
      reportRejected(reporter, config, pushed.rejected);
      const awaitingImages = (pushed.awaitingImages?.length ?? 0) > 0;
      // One workspace of several: the site is the run's (syncWorkspaces).
      const site = dryRun || config.workspace ? undefined : await reportSiteChange(config, reporter);
      // The workflow pushes these again once its deployment has put their images on the site.
      if (!dryRun && !config.workspace) setStepOutput('awaiting_images', String(awaitingImages), config.env);
      if (!dryRun && !options.skipBuild && !stop?.signal.aborted) {
        built = await buildWithProgress(config, reporter, { allowPrivate: options.allowPrivate, noCache: options.noCache, inputs: site?.inputs, pathsChecked: true });
        reporter.info(formatBuild(built, config.cwd));
      }
      const summary =
        `${dryRun ? 'Plan' : 'Done'}: pulled ${pulled.remote} entries (${pulled.created.length} new, ${pulled.updated.length + pulled.renamed.length} updated), pushed ${pushed.pushed.length}` +
        `${pushed.deferred.length ? `, ${pushed.deferred.length} deferred` : ''}${pulled.conflicts.length ? `, ${pulled.conflicts.length} conflicts` : ''}` +
        `${built ? `, ${built.pages} pages in ${relative(config.cwd, built.outputDir) || '.'}` : ''}; ${client.budget.dayRemaining()} requests left today`;
      reporter.summary(syncSummaryMarkdown(pulled, pushed, built, client.budget.dayRemaining(), dryRun, site?.changed));
      reporter.result(summary, { command: 'sync', pull: pulled, push: pushed, build: built, site: site && { changed: site.changed, reason: site.reason }, budget: { dayRemaining: client.budget.dayRemaining() } });
      return { code: syncExitCode(pulled, pushed, built), awaitingImages };
    } finally {
      stop?.dispose();
    }
  });
}

/** Exit code of a sync: the worst ({@link worstExit}) of pull's, push's and the build's (README "Exit codes"). */
export function syncExitCode(pulled: PullResult, pushed: PushResult, built?: Pick<BuildResult, 'unreadable'>): ExitCode {
  return worstExit([pullExitCode(pulled), pushExitCode(pushed), ...(built ? [buildExitCode(built)] : [])]);
}

async function demoSync(config: Config, reporter: Reporter, options: SyncCommandOptions): Promise<ExitCode> {
  const demo = await startDemo(config, reporter, 'running the DEMO');
  try {
    // Both products, as a project of several workspaces syncs them: one site of both.
    const code = await syncWorkspaces(demo.config, reporter, demo.config.workspaces!, options, false);
    if (!options.dryRun && !options.skipBuild) reporter.info(viewDemoSite(demo.config));
    return code;
  } finally {
    await demo.close();
  }
}

/** How to look at the demo's site: its links are absolute paths, so it must be served at the site URL; `dev --demo` previews its first product only. */
function viewDemoSite(config: Config): string {
  const out = relative(config.cwd, config.outputDir) || '.';
  return `View the site: serve ${out}/ at ${config.siteUrl} with any static file server (opening its files directly shows them unstyled); \`${commandLine(config.root, 'dev --demo')}\` is a live preview of its first product.`;
}

/** Every identifier this run wrote into a local file: pushed, reconciled or adopted (by pull's recovery or by push). */
export function identifiersWritten(pulled: PullResult, pushed: PushResult): Array<{ file: string; identifier: string; how: string; status?: string }> {
  return [...pulled.bound.map((b) => ({ file: b.file, identifier: b.identifier, how: b.how })), ...pushed.pushed.map((p) => ({ file: p.file, identifier: p.identifier, how: p.how, status: p.status }))];
}

/**
 * A sync's Markdown job summary (`$GITHUB_STEP_SUMMARY`), data escaped (`markdownText`, `markdownCode`).
 * @param siteChanged the `site_changed` decision (docs/github-actions.md); omitted on a dry run.
 */
export function syncSummaryMarkdown(pulled: PullResult, pushed: PushResult, built: BuildResult | undefined, budgetLeft: number, dryRun: boolean, siteChanged?: boolean): string {
  const rows: Array<[string, string | number]> = [
    ['pulled (remote entries)', pulled.remote],
    ['new from the service', pulled.created.length],
    ['updated from the service', pulled.updated.length + pulled.renamed.length],
    ['pushed (created on the service)', pushed.pushed.length],
    ['conflicts', pulled.conflicts.length],
    ['local edits that cannot be pushed', pulled.localEdits.length],
    ['deferred to the next run', pushed.deferred.length],
    ['rejected files', pushed.rejected.length],
    ['requests left today', budgetLeft],
  ];
  if (siteChanged !== undefined) rows.push(['site changed since the last deployed build', siteChanged ? 'yes' : 'no']);
  if (built) rows.push(['pages built', built.pages]);
  const lines = [`### changelog-sync ${dryRun ? 'plan (dry run)' : 'sync'}: "${markdownText(pulled.workspace.name)}"`, '', '| | |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${v} |`), ''];
  const list = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`**${title}**`, '', ...items.map((i) => `- ${i}`), '');
  };
  list(
    'Identifiers written in this run (also in the files; nothing depends on the commit-back)',
    identifiersWritten(pulled, pushed).map((w) => `${markdownCode(w.file)} → ${markdownCode(w.identifier)} (${w.how}${w.status ? `, ${markdownText(w.status)}` : ''})`),
  );
  list('Conflicts (local kept; remote version in .changelog/conflicts/)', pulled.conflicts.map((c) => markdownCode(c.file)));
  list('Deferred', pushed.deferred.map((d) => markdownCode(d.file)));
  list('Rejected', pushed.rejected.map((r) => markdownText(r.reason)));
  return lines.join('\n');
}
