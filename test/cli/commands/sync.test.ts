// Sync's exit code includes the build's (README "Exit codes"): a mirrored entry the writer
// broke is left out of the site by `build`, which exits 5, and so must `sync`, the command
// the hourly job and the quick start run; `--skip-build` leaves it to the build step. The
// commands run in the test's process (helpers/process/command.ts).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/cli/output/exit-codes.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { syncCommand } from '../../../src/cli/commands/sync.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { seedStore, startWorld, type World } from '../../helpers/sync/sync-world.js';

describe('sync exits with the build outcome', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let world: World;
  let broken = '';
  beforeEach(async () => {
    world = await startWorld(seedStore(2), dir);
    world.env.CHANGELOG_SITE_URL = 'https://example.test/';
    const pulled = await world.run((config, reporter) => pullCommand(config, reporter));
    expect(pulled.code, pulled.stderr).toBe(0);
    const [name] = (await readdir(join(world.contentDir, 'entries'))).filter((n) => n.endsWith('.md')).sort();
    broken = `entries/${name!}`;
    // A YAML slip in a mirrored file: it keeps its identifier line, so push has nothing to send.
    const text = await readFile(join(world.contentDir, broken), 'utf8');
    await writeFile(join(world.contentDir, broken), text.replace(/^title: (.*)$/m, 'title: "$1'));
  });
  afterEach(() => world.close());

  it('build exits 5 and names the file; sync exits 5 too, with the same site built', async () => {
    const built = await world.run((config, reporter) => buildCommand(config, reporter));
    expect(built.code, built.stderr).toBe(EXIT.INVALID);
    expect(built.stderr).toContain(broken);
    const synced = await world.run((config, reporter) => syncCommand(config, reporter), { json: true });
    expect(synced.code, synced.stderr).toBe(EXIT.INVALID);
    const out = JSON.parse(synced.stdout) as { build: { unreadable: Array<{ file: string }> }; push: { pushed: unknown[] } };
    expect(out.build.unreadable.map((u) => u.file)).toEqual([broken]);
    expect(out.push.pushed).toEqual([]);
  });

  it('sync --skip-build leaves the build outcome to the build step', async () => {
    const synced = await world.run((config, reporter) => syncCommand(config, reporter, { skipBuild: true }));
    expect(synced.code, synced.stderr).toBe(EXIT.OK);
  });
});
