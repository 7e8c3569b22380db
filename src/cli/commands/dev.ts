/**
 * `changelog-sync dev`: the writer's live preview, no token or network needed. Eleventy's dev
 * server with live reload, chokidar watching `content/`: an entry file is validated on every
 * save, errors printed and shown on the page. It never pushes. It previews the demo with `--demo`
 * or when there is no content; otherwise `content/`, pulled first with `--pull`.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Config } from '../../core/config.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { shownPaths } from '../../core/file-error.js';
import { stripPath } from '../../entry/entry-problems.js';
import { listEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import { WORKSPACE_DATA_FILE } from '../../entry/workspace-binding.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import { handleError } from '../output/handle-error.js';
import type { Reporter } from '../output/reporter.js';
import { commandLine } from '../../core/project-command.js';
import { assertInsideProject } from '../../core/project-path.js';
import { pageProblems, savedFileProblems, watchEntryFiles } from '../../site/dev/entry-watch.js';
import type { PageProblem } from '../../site/render/problem-banner.js';
import { problemText } from '../output/check-report.js';
import { withContext } from '../context.js';
import { startDemo, type Demo } from '../demo.js';
import { untilStopSignal } from '../stop-signals.js';
import { formatPull, pullWithProgress } from '../steps/pull-step.js';

/** The preview's demo folder under `.demo/`: its own, not the `.demo/_site` that `npm start` built. */
const DEMO_PREVIEW_DIR = 'preview';

/** Options of {@link devCommand}. */
export interface DevCommandOptions {
  /** First port to try. Default 8080. */
  port?: number;
  /** Pull once before serving (needs `CHANGELOG_TOKEN`; the demo always pulls, it starts empty). */
  pull?: boolean;
  /** Preview the demo workspace even when there is content. */
  demo?: boolean;
}

/**
 * Reports one saved entry file: `ok: file`, each problem as `check` words it, or `removed: file`
 * when it is gone by the read (a `git checkout` after the watcher's event). Never rejects: any other
 * error is a problem line, so a save cannot stop `dev` with an unhandled rejection.
 * @param rel the file under the content directory, e.g. `entries/2026-11-22-x.md`.
 * @param shown how a file (by `rel`) is named in the output.
 * @param others the other entry files as the preview holds them (not read again); default read now.
 */
export async function reportSaved(contentDir: string, rel: string, reporter: Pick<Reporter, 'info' | 'problem'>, shown: (rel: string) => string, others?: readonly IndexedFile[]): Promise<void> {
  try {
    const problems = await savedFileProblems(contentDir, rel, others);
    if (problems === undefined) reporter.info(`removed: ${shown(rel)}`);
    else if (problems.length === 0) reporter.info(`ok: ${shown(rel)}`);
    else for (const p of problems) reporter.problem({ file: shown(rel), line: p.line, level: p.severity, message: problemText(p) });
  } catch (err) {
    reporter.problem({ file: shown(rel), message: `cannot be checked: ${err instanceof Error ? err.message : String(err)}` });
  }
}

/**
 * Reports the content's problems when `dev` starts, one line each at `check`'s severity.
 * @param shown how a file (by its path under the content directory) is named in the output.
 */
export function reportPageProblems(problems: readonly PageProblem[], reporter: Pick<Reporter, 'problem'>, shown: (rel: string) => string): void {
  for (const p of problems) reporter.problem({ file: shown(p.file), line: p.line, level: p.severity ?? 'error', message: problemText(p) });
}

/** True when the content directory holds anything to preview: an entry file or the workspace settings. */
async function hasContent(contentDir: string): Promise<boolean> {
  return existsSync(join(contentDir, WORKSPACE_DATA_FILE)) || (await listEntryFiles(contentDir)).length > 0;
}

/**
 * Runs the preview until told to stop.
 * @throws {ChangelogSyncError} `E_CONFIG` with `--pull` and no `CHANGELOG_TOKEN` (nothing is
 *   served); `E_BUILD` when the first build fails.
 */
export async function devCommand(config: Config, reporter: Reporter, options: DevCommandOptions = {}): Promise<ExitCode> {
  /** A command of changelog-sync as this project runs it, for a message. */
  const run = (args: string) => `\`${commandLine(config.root, args)}\``;
  if (options.pull && !options.demo && !config.token) {
    throw new ChangelogSyncError('E_CONFIG', '--pull needs a token: CHANGELOG_TOKEN is not set', {
      field: 'CHANGELOG_TOKEN',
      hint: `run ${run('dev')} without --pull to preview content/ as it is (no token needed), or export CHANGELOG_TOKEN (and CHANGELOG_BASE_URL) to refresh it first`,
    });
  }
  // Eleventy loads after the options are known good, so a refusal above prints at once.
  const { freePortFrom, serveSite } = await import('../../site/dev/serve.js');
  // Served at a local address's root: the preview's own site URL and base path, whatever the
  // published siteUrl. The port is chosen first, so links and the demo's logo name it.
  const port = await freePortFrom(options.port ?? 8080);
  const localUrl = `http://localhost:${port}/`;
  let demo: Demo | undefined;
  let cfg: Config = { ...config, siteUrl: localUrl };
  const showDemo = options.demo || (!options.pull && !(await hasContent(config.contentDir)));
  if (showDemo) {
    const reason = options.demo ? 'dev --demo' : `${relative(config.cwd, config.contentDir) || '.'}/ has no entries yet`;
    demo = await startDemo(cfg, reporter, 'previewing the DEMO', { reason, subdir: DEMO_PREVIEW_DIR, firstOnly: true });
    cfg = demo.config;
    if (!options.demo) {
      reporter.info(`Write your first entry with ${run('new "Title"')} and run ${run('dev')} again to preview it${config.token ? `, or ${run('dev --pull')} to preview your workspace` : ''}.\n`);
    }
  } else {
    reporter.info(
      options.pull
        ? `Pulling, then previewing ${relative(cfg.cwd, cfg.contentDir) || '.'}/.`
        : `Previewing ${relative(cfg.cwd, cfg.contentDir) || '.'}/ as it is: no token and no network needed (${run('dev --pull')} refreshes it first).`,
    );
  }
  try {
    if (demo || options.pull) {
      await withContext(cfg, reporter, {}, async (client) => {
        // Checked once for the pull and the preview: nothing is written or served through a link out of the project.
        await assertInsideProject(cfg);
        reporter.info(formatPull(await pullWithProgress(client, cfg, reporter)));
      });
    } else await assertInsideProject(cfg);
    const shown = (rel: string) => relative(cfg.cwd, join(cfg.contentDir, rel));
    /** The out-of-project problem last printed: printed once, not on every rebuild. */
    let outsideShown: string | undefined;
    const server = await serveSite({
      contentDir: cfg.contentDir,
      siteDir: cfg.siteDir,
      outputDir: cfg.outputDir,
      siteUrl: cfg.siteUrl,
      baseUrl: cfg.baseUrl,
      hostedPageUrl: cfg.hostedPageUrl,
      root: cfg.root,
      theme: cfg.theme,
      // The preview's own bodies (its site URL is its local address): a warm start next time.
      cacheDir: cfg.buildCacheDir && join(cfg.buildCacheDir, 'preview'),
      imageBounds: cfg.imageBounds,
      port,
      // A link out of the project appearing while serving refuses the rebuild (nothing copied
      // through it), printed once, as Eleventy's own error kind so the watch goes on.
      problems: async (files) => {
        try {
          await assertInsideProject(cfg);
          outsideShown = undefined;
        } catch (err) {
          const outside: PageProblem =
            err instanceof ChangelogSyncError
              ? { kind: 'outside', file: err.file ?? (relative(cfg.cwd, cfg.root) || '.'), message: stripPath(err.message, err.file), hint: err.hint }
              : { kind: 'outside', file: relative(cfg.cwd, cfg.root) || '.', message: String(err) };
          const text = problemText(outside);
          if (text !== outsideShown) handleError(err, reporter);
          outsideShown = text;
          return [outside, ...(await pageProblems(cfg.contentDir, files))];
        }
        return pageProblems(cfg.contentDir, files);
      },
      // Files named by their absolute paths: shown relative to the working directory.
      onLog: (m) => reporter.debug(shownPaths(m, cfg.cwd)),
      verbose: reporter.verbose,
    });
    // The content's problems as the first build found them (a link out of the project is printed above).
    reportPageProblems(server.problems.filter((p) => p.kind !== 'outside'), reporter, shown);

    // Validate on save, and say so: the page reloads by itself.
    const watcher = watchEntryFiles(cfg.contentDir, {
      saved: (rel) => {
        reporter.debug(`saved: ${shown(rel)}`);
        return reportSaved(cfg.contentDir, rel, reporter, shown, server.entryFiles());
      },
      error: (err) => reporter.problem({ file: shown(''), message: `not watched: ${err instanceof Error ? err.message : String(err)}` }),
    });

    reporter.result(
      [`Serving the changelog at ${server.url}`, `Watching ${relative(cfg.cwd, cfg.contentDir) || '.'} and ${relative(cfg.cwd, cfg.siteDir) || '.'}: save a file and the page reloads.`, `Nothing is pushed: entries are created when your pull request is merged (or by ${run('push')}). Ctrl-C stops.`].join('\n'),
      { command: 'dev', url: server.url, contentDir: cfg.contentDir },
    );
    await untilStopSignal();
    await watcher.close();
    await server.close();
    return EXIT.OK;
  } finally {
    await demo?.close();
  }
}
