/**
 * `changelog-sync sync [--dry-run] [--demo]`: pull, push, build (the main job).
 *
 * With no service configured (neither `CHANGELOG_BASE_URL` nor `CHANGELOG_TOKEN`), it runs
 * the demo: the built-in emulator on a free loopback port seeded with the demo workspace,
 * and everything written under `.demo/` (ignored by git).
 *
 * @module
 */
import { cp, mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config } from '../config.js';
import { loadSeed, DEMO_ENTRIES_DIR } from '../emulator/seed.js';
import { startEmulator } from '../emulator/server.js';
import { pull } from '../mirror/pull.js';
import { push } from '../mirror/push.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { buildSite } from '../site/build.js';
import { formatBuild } from './build.js';
import { openContext } from './context.js';
import { formatPull } from './pull.js';
import { formatPush, pushExitCode } from './push.js';

/** The demo workspace's token in the shipped seed. */
const DEMO_TOKEN = 'demo-token';

/** Where the demo writes (ignored by git). */
export const DEMO_DIR = '.demo';

/** Options of {@link syncCommand}. */
export interface SyncCommandOptions {
  dryRun?: boolean;
  /** Force the demo even when a service is configured. */
  demo?: boolean;
  prune?: boolean;
}

/** The most serious of several exit codes. */
export function worstExit(codes: ExitCode[]): ExitCode {
  for (const c of [EXIT.ERROR, EXIT.INVALID, EXIT.CONFLICT, EXIT.DEFERRED] as const) if (codes.includes(c)) return c;
  return EXIT.OK;
}

/** Pull, push and build against the configured service (or the demo, see the module doc). */
export async function syncCommand(config: Config, reporter: Reporter, options: SyncCommandOptions = {}): Promise<ExitCode> {
  if (options.demo || (!config.baseUrl && !config.token)) return demoSync(config, reporter, options);
  return runSync(config, reporter, options);
}

async function runSync(config: Config, reporter: Reporter, options: SyncCommandOptions): Promise<ExitCode> {
  const ctx = await openContext(config, reporter);
  const dryRun = options.dryRun ?? false;
  try {
    reporter.info(`Pulling from ${config.baseUrl} ...`);
    const pulled = await pull({ client: ctx.client, contentDir: config.contentDir, stateDir: config.stateDir, prune: options.prune, dryRun });
    reporter.info(formatPull(pulled));
    reporter.info('Pushing new local entries ...');
    const pushed = await push({ client: ctx.client, contentDir: config.contentDir, stateDir: config.stateDir, dryRun, concurrency: config.concurrency });
    reporter.info(formatPush(pushed));
    let built;
    if (!dryRun) {
      reporter.info('Building the site ...');
      built = await buildSite({ contentDir: config.contentDir, siteDir: config.siteDir, outputDir: config.outputDir, siteUrl: config.siteUrl, root: config.root });
      reporter.info(formatBuild(built));
    }
    const summary = [
      `${dryRun ? 'Plan' : 'Done'}: pulled ${pulled.remote} entries (${pulled.created.length} new, ${pulled.updated.length + pulled.renamed.length} updated), pushed ${pushed.pushed.length}` +
        `${pushed.deferred.length ? `, ${pushed.deferred.length} deferred` : ''}${pulled.conflicts.length ? `, ${pulled.conflicts.length} conflicts` : ''}` +
        `${built ? `, ${built.pages} pages in ${relative(process.cwd(), built.outputDir) || '.'}` : ''}; ${ctx.client.budget.dayRemaining()} requests left today`,
    ].join('\n');
    reporter.result(summary, { command: 'sync', pull: pulled, push: pushed, build: built, budget: { dayRemaining: ctx.client.budget.dayRemaining() } });
    return worstExit([pulled.conflicts.length ? EXIT.CONFLICT : EXIT.OK, pushExitCode(pushed)]);
  } finally {
    await ctx.close();
  }
}

async function demoSync(config: Config, reporter: Reporter, options: SyncCommandOptions): Promise<ExitCode> {
  const demoRoot = join(config.root, DEMO_DIR);
  await rm(demoRoot, { recursive: true, force: true });
  const contentDir = join(demoRoot, 'content');
  await mkdir(join(contentDir, 'entries'), { recursive: true });
  await cp(DEMO_ENTRIES_DIR, join(contentDir, 'entries'), { recursive: true });
  const emulator = await startEmulator({ port: 0, store: await loadSeed('demo') });
  reporter.info(
    [
      'No CHANGELOG_TOKEN is set: running the DEMO against the built-in emulator of the changelog service',
      `(${emulator.url}, workspace "Lumen"). Everything is written under ${DEMO_DIR}/, which git ignores.`,
      'Set CHANGELOG_BASE_URL and CHANGELOG_TOKEN to sync your own workspace.',
      '',
    ].join('\n'),
  );
  try {
    const demoConfig: Config = {
      ...config,
      baseUrl: emulator.url,
      token: DEMO_TOKEN,
      contentDir,
      stateDir: join(demoRoot, '.changelog'),
      outputDir: join(demoRoot, '_site'),
    };
    return await runSync(demoConfig, reporter, options);
  } finally {
    await emulator.close();
  }
}
