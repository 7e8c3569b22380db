// A commit-back lost twice, with a real git repository: the scheduled job's commit-back is
// lost twice (the runs' results discarded with `git stash -u`, so the tree returns to the
// old commit), then a third run. Every run starts from a tree where the writer's files
// have no identifier while the service has their entries: pull must bind them (adoption),
// never mirror them as new files, and push must never send them again. Explicit slugs,
// derived slugs, and "Weekly fixes" repeated (its plain slug taken by an older remote entry).
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { expectInvariant, seedStore, startWorld, writeWriterFiles, type World } from '../../helpers/sync/sync-world.js';

const REMOTE = 20;
const FILES = 15;

describe('a commit-back lost twice', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let world: World;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Job', '-c', 'user.email=job@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
  beforeAll(async () => {
    const base = seedStore(REMOTE);
    base.insertEntry(base.workspaces[0]!, { identifier: 'remote-weekly', title: 'Weekly fixes', slug: 'weekly-fixes', publish_at: '2025-12-01', content: '<p>Older fixes.</p>' });
    world = await startWorld(base, dir);
  });
  afterAll(() => world.close());

  it('three runs, the first two discarded with git stash -u: zero duplicates, every file with its identifier, the third exits 0 and check passes', async () => {
    git('init', '-q', '-b', 'main');
    const pulled = await world.cli(['pull']);
    expect(pulled.code, pulled.stderr).toBe(0);
    const writers = await writeWriterFiles(world.contentDir, FILES);
    git('add', '-A');
    git('commit', '-q', '-m', 'writers add entries');
    const head = git('rev-parse', 'HEAD').trim();

    const slugsAfter: string[][] = [];
    for (let run = 1; run <= 2; run++) {
      const r = await world.cli(['--json', 'sync', '--skip-build']);
      expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
      // The run wrote identifiers into the writer's files...
      const texts = await Promise.all([...writers.keys()].map((rel) => readFile(join(world.contentDir, rel), 'utf8')));
      expect(texts.every((t) => /^identifier: /m.test(t))).toBe(true);
      slugsAfter.push(texts.map((t, i) => parseEntryFile([...writers.keys()][i]!, t).data.slug!));
      // ... and its commit never reaches the repository.
      git('stash', '-u', '-q');
      expect(git('status', '--porcelain')).toBe('');
      expect(git('rev-parse', 'HEAD').trim()).toBe(head);
      expect(world.store.listEntries(world.ws)).toHaveLength(REMOTE + 1 + FILES);
    }
    // Derived slugs depend only on the local files: both runs gave every file the same slug.
    expect(slugsAfter[1]).toEqual(slugsAfter[0]);
    expect(slugsAfter[0]!.filter((s) => s.startsWith('weekly-fixes-2026-'))).toHaveLength(2);

    const third = await world.cli(['--json', 'sync', '--skip-build']);
    expect(third.code, third.stderr).toBe(0);
    const out = JSON.parse(third.stdout) as { pull: { created: unknown[]; bound: Array<{ how: string }> }; push: { pushed: unknown[] } };
    expect(out.pull.created).toEqual([]);
    expect(out.pull.bound.map((b) => b.how)).toEqual(Array(FILES).fill('adopted'));
    expect(out.push.pushed).toEqual([]);
    await expectInvariant(world, REMOTE + 1 + FILES, writers);
    const check = await world.cli(['check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });
});
