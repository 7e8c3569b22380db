// A project with files beside it, outside it, for the tests of symbolic links that resolve out
// of the project: the commands run in the test's process
// (test/cli/outside-project.test.ts) and `dev`, the real CLI serving
// (test/e2e/site/dev-refuses-links-out.test.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore } from '../../../src/emulator/store.js';
import { tempDir } from '../process/cli.js';
import { writeEntries } from './entries.js';
import { PNG_1X1 } from './media.js';

/** The entry file outside the project (`outside/entry.md`), a valid entry of its own. */
export const SECRET_ENTRY = '---\ntitle: "Outside"\npublish_at: 2026-02-01\nis_published: true\n---\n\nA file of the machine, not of the project.\n';

/** What {@link useOutsideProject} hands a test. */
export interface OutsideProject {
  /** The project, `<tmp>/project`: two entries (`writeEntries`) and an empty `content/images/`. */
  project: string;
  /** Beside it, `<tmp>/outside`: `secret.png` ({@link PNG_1X1}) and `entry.md` ({@link SECRET_ENTRY}). */
  outside: string;
  /** An emulator with one workspace, "Links", token `link-token`. */
  emu: RunningEmulator;
  store: EmulatorStore;
  /** CHANGELOG_BASE_URL and CHANGELOG_TOKEN for the emulator. */
  env: Record<string, string>;
}

/**
 * For each test of the enclosing block (or file): an {@link OutsideProject} made before it and
 * handed to `use` (`useOutsideProject((p) => ({ project, outside, env } = p))`); after it, the
 * emulator is stopped and both folders removed.
 */
export function useOutsideProject(use: (made: OutsideProject) => void): void {
  let made: OutsideProject | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    let base: string;
    ({ dir: base, cleanup } = await tempDir());
    const project = join(base, 'project');
    const outside = join(base, 'outside');
    await mkdir(join(project, 'content/images'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.png'), PNG_1X1);
    await writeFile(join(outside, 'entry.md'), SECRET_ENTRY);
    await writeEntries(join(project, 'content'), 2);
    const store = new EmulatorStore();
    store.addWorkspace({ name: 'Links', tokens: ['link-token'] });
    const emu = await startEmulator({ port: 0, store });
    made = { project, outside, emu, store, env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'link-token' } };
    use(made);
  });
  afterEach(async () => {
    await made?.emu.close();
    await cleanup?.();
    made = cleanup = undefined;
  });
}
