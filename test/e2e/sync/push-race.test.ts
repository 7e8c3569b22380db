// The push lease: two clones of one bare origin push the same new files
// at once against a service slow to answer the POST (each create held 300 ms before its
// commit), 20 rounds. The lock covers one directory only; without the lease both clones
// sent, and the service had two entries per file in most rounds. With it, every file is
// one entry: one clone creates it, the other waits for the lease and adopts it from the
// listing it reads once it holds the lease.
//
// Real processes: the compiled CLI twice at once per round, git clones of a bare origin,
// the emulator over HTTP on port 0. Each round waits on the two processes' exits.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir } from '../../helpers/process/cli.js';
import { addEntries, git, makeClones, type Clone } from '../../helpers/sync/clones.js';

const ROUNDS = Number(process.env.RACE_ROUNDS ?? 20);
const PER_ROUND = 2;

describe('two clones push the same new files at once, against a slow service', () => {
  let emu: RunningEmulator;
  let store: EmulatorStore;
  let ws: EmulatorWorkspace;
  let root = '';
  let cleanup: () => Promise<void>;
  let seed = '';
  let clones: Clone[] = [];

  beforeAll(async () => {
    store = new EmulatorStore();
    ws = store.addWorkspace({ name: 'Race', tokens: ['race-token'] });
    emu = await startEmulator({ port: 0, store, limits: { perMinute: 600, windowMs: 1000 }, faults: { stallCreateEvery: 1, stallMs: 300 } });
    ({ dir: root, cleanup } = await tempDir('changelog-sync-race-'));
    // A lease lifetime far beyond any stall of a loaded machine (renewed every 10 s): with 4 s,
    // a renewal late by a few seconds at a load of 20 let the other clone take over, and the
    // holder stopped (correctly) with an error; the race, not the load, must decide each round.
    const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'race-token', CHANGELOG_RATE_WINDOW_MS: '100', CHANGELOG_TIMEOUT_MS: '2000', CHANGELOG_LEASE_TTL_MS: '30000' };
    ({ seed, clones } = await makeClones(root, 2, env));
  });
  afterAll(async () => {
    await emu.close();
    await cleanup?.();
  });

  it(`${ROUNDS} rounds of ${PER_ROUND} files: exactly one entry each, both clones bound to it`, async () => {
    const all: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const day = new Date(Date.UTC(2026, 2, round)).toISOString().slice(0, 10);
      const files = Array.from({ length: PER_ROUND }, (_, i) => ({ name: `round-${round}-${i + 1}`, title: `Round ${round}, change ${i + 1}`, day }));
      const rels = await addEntries(seed, files);
      all.push(...files.map((f) => f.title));
      for (const c of clones) git(c.dir, 'pull', '-q', '--ff-only', 'origin', 'main');
      const runs = clones.map((c) => c.spawn(['push']));
      const results = await Promise.all(runs.map((r) => r.done));
      for (const [i, r] of results.entries()) expect(r.code, `round ${round}, clone ${i + 1}:\n${r.stdout}\n${r.stderr}`).toBe(0);

      const titles = store.listEntries(ws).map((e) => e.title);
      const twice = titles.filter((t, i) => titles.indexOf(t) !== i);
      expect(twice, `round ${round}: created twice`).toEqual([]);
      expect(titles.sort()).toEqual([...all].sort());
      for (const rel of rels) {
        const ids = await Promise.all(clones.map((c) => c.identifierOf(rel)));
        expect(ids[0], `round ${round}: ${rel}`).toBeTruthy();
        expect(ids[1], `round ${round}: ${rel}`).toBe(ids[0]);
      }
    }
    expect(store.listEntries(ws)).toHaveLength(ROUNDS * PER_ROUND);
    expect(emu.log.filter((r) => r.method === 'POST')).toHaveLength(ROUNDS * PER_ROUND);
    // Released at the end of every push: no lease is left on the origin.
    expect(git(join(root, 'seed'), 'ls-remote', 'origin', 'refs/changelog-sync/*').trim()).toBe('');
  }, 900_000); // 1-3 s a round on an idle 2-core machine; 15 s at a load of 30
});
