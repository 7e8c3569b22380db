// Scenario 1 of issue 12: a push killed after its 3rd POST (failpoint
// `push:after-post:3`), then resumed by `sync --skip-build` (pull runs first): the
// entries whose answers were lost are bound to their files, never mirrored as new files,
// never sent again.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, useTempDir } from '../helpers/cli.js';
import { expectInvariant, seedStore, startWorld, writeWriterFiles, type World } from '../helpers/sync-world.js';

describe('push killed after its 3rd POST, resumed by sync', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let world: World;
  beforeAll(async () => {
    world = await startWorld(seedStore(0), dir);
  });
  afterAll(() => world.close());

  it('12 files: 12 entries on the service, no identifier in two files', async () => {
    const writers = await writeWriterFiles(world.contentDir, 12);
    const killed = await world.cli(['push'], 'push:after-post:3');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const journal = JSON.parse(await readFile(join(dir, '.changelog/journal.json'), 'utf8')) as { records: Array<{ slug: string }> };
    const listed = new Set(world.store.listEntries(world.ws).map((e) => e.slug));
    // The kill left at least one POST the service created whose answer the journal never saw.
    expect(journal.records.filter((r) => listed.has(r.slug)).length).toBeGreaterThanOrEqual(1);

    const summaryFile = join(dir, 'summary.md');
    const resumed = await runCli(['--json', 'sync', '--skip-build'], { cwd: dir, env: { ...world.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile } });
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    const out = JSON.parse(resumed.stdout) as { pull: { created: unknown[]; bound: Array<{ how: string }> } };
    expect(out.pull.created).toEqual([]);
    expect(out.pull.bound.length).toBeGreaterThanOrEqual(1);
    await expectInvariant(world, 12, writers);
    // The job summary names every identifier this run wrote (bound by pull, or pushed):
    // the 12 files' identifiers, less those the killed run had written back itself.
    const summary = await readFile(summaryFile, 'utf8');
    const written = summary.split('\n').filter((l) => /^- `entries\/.*` → /.test(l));
    const ids = await Promise.all([...writers.keys()].map(async (rel) => /^identifier: (.*)$/m.exec(await readFile(join(world.contentDir, rel), 'utf8'))![1]!));
    expect(written.length).toBe(out.pull.bound.length + (JSON.parse(resumed.stdout) as { push: { pushed: unknown[] } }).push.pushed.length);
    expect(written.length).toBeGreaterThanOrEqual(12 - 3);
    for (const line of written) expect(ids.some((id) => line.includes(id)), line).toBe(true);
  });
});
