// A project as the CLI tests push it: a fresh emulator with one workspace, an empty project
// folder, and the environment that points the real CLI at the emulator. Shared by the tests
// of push and the rate limits (test/cli/commands/push*.test.ts), its failures
// (test/e2e/sync/push-failure-reports.test.ts), and of check (test/cli/commands/check*.test.ts).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir, useTempDir } from '../process/cli.js';
import { useEmulatorFixture, type EmulatorFixture } from './emulator.js';

/** What {@link startProject} made. */
export interface Project {
  emu: RunningEmulator;
  store: EmulatorStore;
  ws: EmulatorWorkspace;
  /** The project folder (empty). */
  dir: string;
  /** `dir/content`, not made yet. */
  content: string;
  /** CHANGELOG_BASE_URL and CHANGELOG_TOKEN for the emulator, and `options.env`. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** What the workspace is called, its token, the emulator's options and more environment for the CLI. */
export interface ProjectOptions {
  name: string;
  token: string;
  emulator?: EmulatorOptions;
  env?: Record<string, string>;
}

/** Starts an emulator with one workspace and makes an empty project folder; `close` stops and removes both. */
export async function startProject(options: ProjectOptions): Promise<Project> {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: options.name, tokens: [options.token] });
  const emu = await startEmulator({ ...options.emulator, port: 0, store });
  const { dir, cleanup } = await tempDir();
  return {
    emu,
    store,
    ws,
    dir,
    content: join(dir, 'content'),
    env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: options.token, ...options.env },
    async close() {
      await emu.close();
      await cleanup();
    },
  };
}

/**
 * For the tests of the enclosing block (or file): a {@link startProject} before each test,
 * closed after it. Read the fields inside tests (the object's fields change for each).
 */
export function useProject(options: ProjectOptions): Project {
  const project = {} as Project;
  beforeEach(async () => {
    Object.assign(project, await startProject(options));
  });
  afterEach(async () => project.close());
  return project;
}

/** What {@link useEntriesProject} gives the tests of a file. */
export interface EntriesProject {
  /** The file's emulator. */
  fx: EmulatorFixture;
  /** CHANGELOG_BASE_URL and CHANGELOG_TOKEN for the file's emulator. */
  env: Record<string, string>;
  /** The test's project folder, with an empty `content/entries/`. */
  dir: string;
  /** The path of `content/entries/<name>` in it. */
  entry(name: string): string;
}

/**
 * For a file's tests of `check` and `push` on entry files: one emulator for all of them, and a
 * fresh project folder with an empty `content/entries/` before each. Read the fields inside tests.
 */
export function useEntriesProject(): EntriesProject {
  const emulator = useEmulatorFixture();
  const project = { entry: (name: string) => join(project.dir, 'content/entries', name) } as EntriesProject;
  useTempDir((made) => (project.dir = made), { each: true });
  beforeEach(async () => {
    project.fx = emulator.fx;
    project.env = emulator.env;
    await mkdir(join(project.dir, 'content/entries'), { recursive: true });
  });
  return project;
}
