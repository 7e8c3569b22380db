// The worker threads changelog-sync starts (src/core/threads.ts), started for real from the
// compiled module: each gets the young generation of Node 20 and 22's V8, whatever the
// Node, and the old generation's limit only when one is asked for. Node 24's V8 gives a thread 192 MB of young generation by default, against 48 on
// Node 20 and 22: there (ci.yml's matrix) the young generation's checks fail without the setting.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const THREADS = new URL('../../dist/core/threads.js', import.meta.url).href;

type Threads = typeof import('../../src/core/threads.js');

let dir: string;
let threads: Threads;
/** A worker module answering with its own `resourceLimits`. */
let limitsScript: URL;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cs-threads-'));
  threads = (await import(THREADS)) as Threads;
  limitsScript = pathToFileURL(join(dir, 'limits.mjs'));
  await writeFile(limitsScript, `import { resourceLimits } from 'node:worker_threads';\nimport { answerTask } from ${JSON.stringify(THREADS)};\nanswerTask(() => resourceLimits);\n`);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('threads', () => {
  it("gives a thread a young generation of 48 MB (YOUNG_GENERATION_MB), and the old generation's limit only when asked", async () => {
    const limits = await threads.runTaskOnThread<{ maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number }>(limitsScript, null, 'reading its limits');
    expect(limits.maxYoungGenerationSizeMb).toBe(48);
    const withLimit = threads.startThread(limitsScript, null, 300);
    const reply = await new Promise<{ ok: boolean; result: { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number } }>((resolve, reject) => {
      withLimit.once('message', resolve);
      withLimit.once('error', reject);
    });
    await withLimit.terminate();
    expect(reply.result).toMatchObject({ maxYoungGenerationSizeMb: 48, maxOldGenerationSizeMb: 300 });
    // Without a limit asked for, the old generation keeps V8's own: larger than that one.
    expect(limits.maxOldGenerationSizeMb).toBeGreaterThan(300);
  });
});

