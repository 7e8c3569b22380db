/**
 * The demo: the built-in emulator seeded with the demo workspace, and a configuration
 * that points every path under `.demo/` (ignored by git). Used by `sync` and `dev` when
 * no service is configured.
 * @module
 */
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { DEMO_ENTRIES_DIR, loadSeed } from '../emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../emulator/server.js';
import type { Reporter } from '../output/reporter.js';

/** The demo workspace's token in the shipped seed. */
export const DEMO_TOKEN = 'demo-token';

/** Where the demo writes (ignored by git). */
export const DEMO_DIR = '.demo';

/** A running demo: its emulator and the configuration pointing at it. */
export interface Demo {
  emulator: RunningEmulator;
  config: Config;
  close(): Promise<void>;
}

/**
 * Starts the demo from a clean `.demo/` (the emulator's state lives in memory, so a mirror
 * left by an earlier run would not match it), with the local demo entries in place.
 */
export async function startDemo(config: Config, reporter: Reporter, purpose: string): Promise<Demo> {
  const demoRoot = join(config.root, DEMO_DIR);
  await rm(demoRoot, { recursive: true, force: true });
  const contentDir = join(demoRoot, 'content');
  await mkdir(join(contentDir, 'entries'), { recursive: true });
  await cp(DEMO_ENTRIES_DIR, join(contentDir, 'entries'), { recursive: true });
  const emulator = await startEmulator({ port: 0, store: await loadSeed('demo') });
  reporter.info(
    [
      `No CHANGELOG_TOKEN is set: ${purpose} against the built-in emulator of the changelog service`,
      `(${emulator.url}, workspace "Lumen"). Everything is written under ${DEMO_DIR}/, which git ignores.`,
      'Set CHANGELOG_BASE_URL and CHANGELOG_TOKEN to sync your own workspace.',
      '',
    ].join('\n'),
  );
  return {
    emulator,
    config: { ...config, baseUrl: emulator.url, token: DEMO_TOKEN, contentDir, stateDir: join(demoRoot, '.changelog'), outputDir: join(demoRoot, '_site') },
    close: () => emulator.close(),
  };
}

/** True when nothing is configured: the commands that can run the demo do. */
export function isDemo(config: Config): boolean {
  return !config.baseUrl && !config.token;
}
