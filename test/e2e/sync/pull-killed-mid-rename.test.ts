// A pull killed mid-rename: 300 remote entries change slug; pull is killed (SIGKILL, failpoint
// `pull:mid-rename`) as the renamed files appear, the new file of one written and its old
// one not yet removed. The next pull takes what the killed one wrote from its write-ahead
// log, removes the copy left behind and finishes the renames: one file per identifier,
// `check` passes, and the site builds.
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { seedStore, startWorld, type World } from '../../helpers/sync/sync-world.js';

const REMOTE = 400;
const RENAMED = 300;

/** identifier -> files carrying it. */
async function filesById(contentDir: string): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  for (const name of await readdir(join(contentDir, 'entries'))) {
    const rel = `entries/${name}`;
    const id = parseEntryFile(rel, await readFile(join(contentDir, rel))).data.identifier!;
    ids.set(id, [...(ids.get(id) ?? []), rel]);
  }
  return ids;
}

describe(`pull killed in the middle of ${RENAMED} renames`, () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let world: World;
  beforeAll(async () => {
    world = await startWorld(seedStore(REMOTE), dir);
  });
  afterAll(() => world.close());

  it('the next pull leaves exactly one file per identifier; check and build pass', async () => {
    expect((await world.cli(['pull'])).code).toBe(0);
    for (const e of world.store.listEntries(world.ws).slice(0, RENAMED)) world.store.updateEntry(world.ws, e.identifier, { slug: `${e.slug}-moved` });

    const killed = await world.cli(['pull'], 'pull:mid-rename:150');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const torn = await filesById(world.contentDir);
    // The kill left renamed files beside their old ones.
    const twice = [...torn.values()].filter((f) => f.length > 1).length;
    expect(twice).toBeGreaterThanOrEqual(1);
    // What the killed pull wrote is in its write-ahead log (write-ahead-log.ts): 150 files.
    const ahead = (await readFile(join(dir, '.changelog/pull-ahead.jsonl'), 'utf8')).trim().split('\n');
    expect(ahead).toHaveLength(150);

    const again = await world.cli(['--json', 'pull']);
    expect(again.code, again.stderr).toBe(0);
    const out = JSON.parse(again.stdout) as { repaired: Array<{ action: string }>; created: unknown[] };
    expect(out.created).toEqual([]);
    // The log names the renamed files: only the copies the kill left are repaired (removed, never parked).
    expect(out.repaired).toHaveLength(twice);
    expect(out.repaired.every((r) => r.action === 'removed')).toBe(true);
    expect(existsSync(join(dir, '.changelog/pull-ahead.jsonl'))).toBe(false);

    const ids = await filesById(world.contentDir);
    expect([...ids.values()].filter((f) => f.length > 1)).toEqual([]);
    expect(ids.size).toBe(REMOTE);
    for (const e of world.store.listEntries(world.ws)) expect(ids.get(e.identifier)?.[0] ?? '', e.identifier).toContain(e.slug);

    const check = await world.cli(['check']);
    expect(check.code, check.stdout).toBe(0);
    const build = await world.cli(['build']);
    expect(build.code, build.stdout + build.stderr).toBe(0);

    // A listing that comes back empty (a glitch of the service): --prune refuses it.
    for (const e of world.store.listEntries(world.ws)) world.store.deleteEntry(world.ws, e.identifier);
    const refused = await world.cli(['pull', '--prune']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E_PRUNE_REFUSED');
    expect((await filesById(world.contentDir)).size).toBe(REMOTE);
    const forced = await world.cli(['pull', '--prune', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await filesById(world.contentDir)).size).toBe(0);
  }, 180_000);
});
