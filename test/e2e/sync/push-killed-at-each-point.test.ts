// The push's crash test, by failpoints (src/core/failpoint.ts), not by timing: the real CLI
// (dist/cli.js) pushes 60 new files to the emulator running in this process and kills
// itself with SIGKILL at a named checkpoint of the push (`CHANGELOG_FAILPOINT`), then runs
// again, until every point below was hit; a last run completes. At most once, nothing
// lost: exactly 60 remote entries, each file with the identifier of its own entry, every
// file byte-identical to its original but for the frontmatter lines push adds.
//
// Each point is reached on every run (the test asserts the kill): no run can pass or fail
// by chance. Runs alternate concurrency 1, 2 and 4 (changelog.config.json). The kills
// after a POST's answer arrived but before the journal saw it leave entries whose answer
// was lost: the next push finds them by slug.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RequestLogRecord, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { spawnCli, tempDir, type CliResult } from '../../helpers/process/cli.js';
import { expectEachOnceAndIntact, writeEntry } from '../../helpers/sync/entries.js';

const FILES = 60;
/**
 * The points, in order; each run is killed at one. A run settles at most n + concurrency - 1
 * files before its kill (at most 5 here, about 30 over these runs), so 60 files last until
 * the state-save point, which comes after all are sent.
 */
const KILLS = [
  'push:after-plan',
  'push:before-post:2',
  'push:after-post:2',
  'journal:tmp-created:3',
  'push:after-journal-created:2',
  'write-back:tmp-created:2',
  'push:after-write-back:2',
  'push:after-post:1',
  'journal:before-flush:4',
  'push:after-journal-remove:2',
  'journal:after-flush:3',
  'push:before-state-save',
];

describe('SIGKILL at any point of a push, then run again', () => {
  let emu: RunningEmulator;
  let ws: EmulatorWorkspace;
  let store: EmulatorStore;
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  const originals = new Map<string, string>();

  beforeAll(async () => {
    store = new EmulatorStore();
    ws = store.addWorkspace({ name: 'Crash', tokens: ['crash-token'] });
    // A compressed minute (1 s) with the real 60 a minute; answers take 20 ms, so that
    // kills land inside requests.
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 60, windowMs: 1000 }, faults: { latencyMs: 20 } });
    ({ dir, cleanup } = await tempDir('changelog-sync-crash-'));
    env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'crash-token', CHANGELOG_RATE_WINDOW_MS: '1000', CHANGELOG_TIMEOUT_MS: '400' };
    const content = join(dir, 'content');
    for (let i = 1; i <= FILES; i++) {
      const day = new Date(Date.UTC(2026, 0, i)).toISOString().slice(0, 10);
      // Every tenth is "Weekly fixes" without a slug: derived slugs must be the same on every rerun.
      const title = i % 10 === 0 ? 'Weekly fixes' : `Release ${i}: "quoted" & more`;
      const text = `---\ntitle: ${JSON.stringify(title)}\npublish_at: ${day}\nis_published: ${i % 3 === 0}\ntags: [Crash]\nowner: team-${i % 4}\n---\n\nEntry **${i}**.\n\n| a | b |\n|---|---|\n| ${i} | x |\n`;
      originals.set(await writeEntry(content, `${day}-release-${i}`, text), text);
    }
  });
  afterAll(async () => {
    await emu.close();
    await cleanup();
  });

  it(`${FILES} files, killed at ${KILLS.length} failpoints: exactly ${FILES} entries, every file intact but for its new lines`, async () => {
    let lostAnswers = 0; // kills after which the journal held a POST the service had created
    for (const [i, point] of KILLS.entries()) {
      await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ concurrency: [1, 2, 4][i % 3] }));
      const result: CliResult = await spawnCli(['--json', 'push'], { cwd: dir, env: { ...env, CHANGELOG_FAILPOINT: point } }).done;
      expect(result.signal, `${point} was not reached: ${result.stdout}${result.stderr}`).toBe('SIGKILL');
      const journal = await readFile(join(dir, '.changelog/journal.json'), 'utf8').then(
        (t) => JSON.parse(t) as { records: Array<{ slug: string; state: string }> },
        () => ({ records: [] }),
      );
      const remoteSlugs = new Set(store.listEntries(ws).map((e) => e.slug));
      if (journal.records.some((r) => r.state === 'sending' && remoteSlugs.has(r.slug))) lostAnswers++;
    }
    const last = await spawnCli(['--json', 'push'], { cwd: dir, env }).done;
    expect(last.code, last.stderr).toBe(0);
    // Kills right after a POST left entries whose answer never reached the journal.
    expect(lostAnswers).toBeGreaterThanOrEqual(2);

    // At most once, nothing lost.
    await expectEachOnceAndIntact({ store, ws }, join(dir, 'content'), originals);
    const posts = emu.log.filter((r: RequestLogRecord) => r.method === 'POST' && r.status === 201);
    expect(new Set(posts.map((p) => p.slug)).size).toBe(FILES);
    expect(posts).toHaveLength(FILES); // no slug was ever created twice
    // Derived slugs held across reruns: the six "Weekly fixes".
    expect(store.listEntries(ws).filter((e) => e.title === 'Weekly fixes').map((e) => e.slug).sort()).toEqual([
      'weekly-fixes',
      'weekly-fixes-2026-01-20',
      'weekly-fixes-2026-01-30',
      'weekly-fixes-2026-02-09',
      'weekly-fixes-2026-02-19',
      'weekly-fixes-2026-03-01',
    ]);

    // Nothing left behind: journal empty, lock released, no temporary files.
    expect((JSON.parse(await readFile(join(dir, '.changelog/journal.json'), 'utf8')) as { records: unknown[] }).records).toEqual([]);
    const state = await readdir(join(dir, '.changelog'));
    expect(state.filter((n) => n !== 'budget.json' && n !== 'journal.json' && n !== 'state.json')).toEqual([]);
    expect((await readdir(join(dir, 'content/entries'))).filter((n) => !n.endsWith('.md'))).toEqual([]);
    // The daily ledger was saved before each request: it counts at least what the service saw.
    const ledger = JSON.parse(await readFile(join(dir, '.changelog/budget.json'), 'utf8')) as { ledger: Array<[number, number]> };
    expect(ledger.ledger.reduce((s, [, c]) => s + c, 0)).toBeGreaterThanOrEqual(emu.log.filter((r) => r.workspace).length);
  }, 180_000);
});
