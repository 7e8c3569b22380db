// The crash test of issue 3: the real CLI (dist/cli.js) pushes 40 new files to the
// emulator running in this process and is killed with SIGKILL at many points of the
// push, then run again, until it completes. At most once, nothing lost: exactly 40
// remote entries, each file with the identifier of its own entry, every file
// byte-identical to its original but for the frontmatter lines push adds.
//
// Kill points (seeded; set CRASH_SEED to replay one): on the arrival of the Nth request
// of a run (the POST is then committed by the service after the run died: a lost
// answer), on the Nth answer, a few ms after the Nth answer (write-back, journal), and at
// a delay after start (start-up, lock, reading files). Each run gets a concurrency of
// 1, 2 or 4 (changelog.config.json).
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RequestLogRecord, type RunningEmulator } from '../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../src/emulator/store.js';
import { spawnCli, tempDir, type CliResult } from '../helpers/cli.js';
import { expectEachOnceAndIntact, writeEntry } from '../helpers/entries.js';
import { seeded } from '../helpers/random.js';

const FILES = 40;
const KILLS = 26;
const SEED = Number(process.env.CRASH_SEED ?? 20261122);

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

  it(`${FILES} files, killed at ${KILLS} points: exactly ${FILES} entries, every file intact but for its new lines`, async () => {
    const rand = seeded(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const points = new Set<string>();
    let kills = 0;
    let lostAnswers = 0; // kills after which the journal held a POST the service had created
    let runs = 0;

    while (kills < KILLS && store.listEntries(ws).length < FILES) {
      const mode = pick(['request', 'answer', 'after-answer', 'after-start'] as const);
      const n = 1 + Math.floor(rand() * 6); // requests 1-2 are the plan's reads, 3+ the POSTs
      const ms = Math.floor(rand() * 25);
      const concurrency = pick([1, 1, 2, 4]);
      await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ concurrency }));
      const point = mode === 'after-start' ? `after-start+${150 + ms * 25}ms` : `${mode}#${n}${mode === 'after-answer' ? `+${ms}ms` : ''}/c${concurrency}`;

      const { child, done } = spawnCli(['--json', 'push'], { cwd: dir, env });
      const kill = () => child.kill('SIGKILL');
      let seen = 0;
      const onRequest = () => {
        if (mode === 'request' && ++seen === n) kill();
      };
      const onAnswer = () => {
        if (mode === 'answer' && ++seen === n) kill();
        if (mode === 'after-answer' && ++seen === n) setTimeout(kill, ms);
      };
      emu.events.on('request', onRequest);
      emu.events.on('response', onAnswer);
      const timer = mode === 'after-start' ? setTimeout(kill, 150 + ms * 25) : undefined;
      const result: CliResult = await done;
      clearTimeout(timer);
      emu.events.off('request', onRequest);
      emu.events.off('response', onAnswer);
      runs++;

      if (result.signal === 'SIGKILL') {
        kills++;
        points.add(point);
        const journal = await readFile(join(dir, '.changelog/journal.json'), 'utf8').then(
          (t) => JSON.parse(t) as { records: Array<{ slug: string; state: string }> },
          () => ({ records: [] }),
        );
        const remoteSlugs = new Set(store.listEntries(ws).map((e) => e.slug));
        if (journal.records.some((r) => r.state === 'sending' && remoteSlugs.has(r.slug))) lostAnswers++;
      } else {
        // It finished before its kill point: a normal run, reported as such.
        expect([0, 4], result.stderr).toContain(result.code);
      }
    }

    console.log(`crash test (seed ${SEED}): ${runs} runs, ${kills} kills at ${points.size} points, ${lostAnswers} with a created entry whose answer was lost`);
    // Run to completion.
    let last: CliResult | undefined;
    for (let i = 0; i < 4 && (last === undefined || last.code !== 0); i++) last = await spawnCli(['--json', 'push'], { cwd: dir, env }).done;
    expect(last!.code, last!.stderr).toBe(0);

    // The test reached what it meant to: many distinct kill points, some of them inside a POST.
    expect(kills).toBeGreaterThanOrEqual(20);
    expect(points.size).toBeGreaterThanOrEqual(20);
    expect(lostAnswers).toBeGreaterThanOrEqual(3);
    expect(runs).toBeGreaterThanOrEqual(kills);

    // At most once, nothing lost.
    await expectEachOnceAndIntact({ store, ws }, join(dir, 'content'), originals);
    const posts = emu.log.filter((r: RequestLogRecord) => r.method === 'POST' && r.status === 201);
    expect(new Set(posts.map((p) => p.slug)).size).toBe(FILES);
    expect(posts).toHaveLength(FILES); // no slug was ever created twice
    // Derived slugs held across reruns: the four "Weekly fixes".
    expect(store.listEntries(ws).filter((e) => e.title === 'Weekly fixes').map((e) => e.slug).sort()).toEqual([
      'weekly-fixes',
      'weekly-fixes-2026-01-20',
      'weekly-fixes-2026-01-30',
      'weekly-fixes-2026-02-09',
    ]);

    // Nothing left behind: journal empty, lock released, no temporary files.
    expect(JSON.parse(await readFile(join(dir, '.changelog/journal.json'), 'utf8')).records).toEqual([]);
    const state = await readdir(join(dir, '.changelog'));
    expect(state.filter((n) => n !== 'budget.json' && n !== 'journal.json' && n !== 'state.json')).toEqual([]);
    expect((await readdir(join(dir, 'content/entries'))).filter((n) => !n.endsWith('.md'))).toEqual([]);
    // The daily ledger was saved before each request: it counts at least what the service saw.
    const ledger = JSON.parse(await readFile(join(dir, '.changelog/budget.json'), 'utf8')) as { ledger: Array<[number, number]> };
    expect(ledger.ledger.reduce((s, [, c]) => s + c, 0)).toBeGreaterThanOrEqual(emu.log.filter((r) => r.workspace).length);
  }, 180_000);
});
