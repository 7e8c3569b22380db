import { join } from 'node:path';
import { tempDir } from './cli.js';
import { emulatorFixture, type EmulatorFixture } from './emulator.js';

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
