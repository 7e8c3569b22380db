import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { tempDir } from '../process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../service/emulator.js';

/** An emulator with one workspace and an empty temporary project: content/ and .changelog/ in it. */
export interface MirrorFixture {
  fx: EmulatorFixture;
  dir: string;
  contentDir: string;
  stateDir: string;
  /** Stops the emulator and removes the directory. */
  cleanup(): Promise<void>;
}

/** Opens a {@link MirrorFixture} (one per test: `beforeEach(async () => ({ ... } = await openMirror()))`). */
export async function openMirror(): Promise<MirrorFixture> {
  const fx = await emulatorFixture();
  const { dir, cleanup } = await tempDir();
  return {
    fx,
    dir,
    contentDir: join(dir, 'content'),
    stateDir: join(dir, '.changelog'),
    async cleanup() {
      await fx.close();
      await cleanup();
    },
  };
}

/**
 * A {@link MirrorFixture} for each test of the file: opened before each test and handed to
 * `use` (`useMirror((m) => ({ fx, contentDir, stateDir } = m))`), closed after it.
 */
export function useMirror(use: (mirror: MirrorFixture) => void): void {
  let mirror: MirrorFixture | undefined;
  beforeEach(async () => {
    mirror = await openMirror();
    use(mirror);
  });
  afterEach(async () => {
    await mirror?.cleanup();
    mirror = undefined;
  });
}
