/**
 * `changelog-sync dev`: the writer's live preview. Eleventy's dev server with live reload
 * over the mirror, and chokidar watching `content/`: an entry file is validated on every
 * save, errors printed with file and line and shown on the page. It never pushes.
 *
 * @module
 */
import { join, relative } from 'node:path';
import { watch } from 'chokidar';
import type { Config } from '../config.js';
import { parseEntryFile } from '../mirror/entry-file.js';
import { readEntryFiles, ENTRIES_DIR } from '../mirror/local-index.js';
import { ChangelogSyncError } from '../api/errors.js';
import { readFile } from 'node:fs/promises';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { serveSite, type PageProblem } from '../site/serve.js';
import { openContext } from './context.js';
import { isDemo, startDemo, type Demo } from './demo.js';
import { formatPull, pullWithProgress } from './pull.js';

/** Options of {@link devCommand}. */
export interface DevCommandOptions {
  /** First port to try. Default 8080. */
  port?: number;
  /** Pull once before serving (default: only in the demo, which starts empty). */
  pull?: boolean;
  /** Resolves when the server should stop (default: SIGINT or SIGTERM). */
  until?: Promise<void>;
}

/** Every entry file that cannot be read, with file and line (for the page banner). */
export async function entryProblems(contentDir: string): Promise<PageProblem[]> {
  const files = await readEntryFiles(contentDir);
  return files.filter((f) => f.error).map((f) => ({ file: f.rel, line: f.error!.line, message: f.error!.message.replace(`${f.rel}: `, '').replace(/^:\d+: /, '') }));
}

/** Runs the preview until told to stop. */
export async function devCommand(config: Config, reporter: Reporter, options: DevCommandOptions = {}): Promise<ExitCode> {
  let demo: Demo | undefined;
  let cfg = config;
  if (isDemo(config)) {
    demo = await startDemo(config, reporter, 'previewing the DEMO');
    cfg = demo.config;
  }
  try {
    if (demo || options.pull) {
      const ctx = await openContext(cfg, reporter);
      try {
        reporter.info(formatPull(await pullWithProgress(ctx.client, cfg, reporter)));
      } finally {
        await ctx.close();
      }
    }
    const shown = (rel: string) => relative(process.cwd(), join(cfg.contentDir, rel));
    const server = await serveSite({
      contentDir: cfg.contentDir,
      siteDir: cfg.siteDir,
      outputDir: cfg.outputDir,
      siteUrl: cfg.siteUrl,
      baseUrl: cfg.baseUrl,
      root: cfg.root,
      port: options.port ?? 8080,
      problems: () => entryProblems(cfg.contentDir),
      onLog: (m) => reporter.debug(m),
    });
    for (const p of await entryProblems(cfg.contentDir)) reporter.problem({ file: shown(p.file), line: p.line, message: p.message });

    // Validate on save, and say so: the page reloads by itself.
    const entriesDir = join(cfg.contentDir, ENTRIES_DIR);
    const watcher = watch(entriesDir, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 } });
    const check = async (abs: string) => {
      if (!abs.endsWith('.md')) return;
      const rel = `${ENTRIES_DIR}/${relative(entriesDir, abs)}`;
      try {
        parseEntryFile(rel, await readFile(abs));
        reporter.info(`ok: ${shown(rel)}`);
      } catch (err) {
        if (!(err instanceof ChangelogSyncError)) throw err;
        reporter.problem({ file: shown(rel), line: err.line, message: err.message.replace(`${rel}: `, '').replace(/^:\d+: /, '') });
      }
    };
    watcher.on('add', (p) => void check(p)).on('change', (p) => void check(p));

    reporter.result(
      [`Serving the changelog at ${server.url}`, `Watching ${relative(process.cwd(), cfg.contentDir) || '.'} and ${relative(process.cwd(), cfg.siteDir) || '.'}: save a file and the page reloads.`, 'Nothing is pushed: run `changelog-sync push` when ready. Ctrl-C stops.'].join('\n'),
      { command: 'dev', url: server.url, contentDir: cfg.contentDir },
    );
    await (options.until ??
      new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }));
    await watcher.close();
    await server.close();
    return EXIT.OK;
  } finally {
    await demo?.close();
  }
}
