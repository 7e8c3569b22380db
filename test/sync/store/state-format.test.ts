// The state format's migrations on their own (src/sync/store/state-format.ts): every earlier
// format has a fixture (test/fixtures/state-format/format-<n>/, a project as the last version
// that wrote it left it), and each is migrated to this version's format with its entries
// kept; a migration run again over its own output changes nothing (a run killed between
// files migrates again); a state of this format is left as it is.
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toolVersion } from '../../../src/core/config.js';
import { loadState } from '../../../src/sync/store/state.js';
import { STATE_FORMAT, openStateFormat } from '../../../src/sync/store/state-format.js';
import { useTempDir } from '../../helpers/process/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/state-format/', import.meta.url));
const EARLIER = Array.from({ length: STATE_FORMAT - 1 }, (_, i) => i + 1);

describe('the state format', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('has a fixture of every earlier format', () => {
    expect(EARLIER.length).toBeGreaterThan(0);
    for (const format of EARLIER) expect(existsSync(join(FIXTURES, `format-${format}/project/.changelog/state.json`)), `format-${format}`).toBe(true);
  });

  it.each(EARLIER)('migrates format %i in place: every file of the migrations, state.json last, its entries kept', async (format) => {
    await cp(join(FIXTURES, `format-${format}/project/.changelog`), dir, { recursive: true });
    const before = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { version: number; entries: object; workspace: string };
    expect(before.version).toBe(format);

    const change = await openStateFormat(dir, { migrate: true, root: dir });
    expect(change).toEqual({ from: format, to: STATE_FORMAT, written: [join(dir, 'budget.json'), join(dir, 'state.json')] });
    const state = await loadState(dir);
    expect(state).toEqual({ version: STATE_FORMAT, tool: toolVersion(), workspace: before.workspace, entries: before.entries });
    const ledgerBefore = (JSON.parse(await readFile(join(FIXTURES, `format-${format}/project/.changelog/budget.json`), 'utf8')) as { ledger: unknown }).ledger;
    expect(JSON.parse(await readFile(join(dir, 'budget.json'), 'utf8'))).toEqual({ version: STATE_FORMAT, ledger: ledgerBefore });

    // Migrated: opened again, nothing is written.
    const mtimes = await Promise.all(['state.json', 'budget.json'].map(async (f) => (await stat(join(dir, f))).mtimeMs));
    expect(await openStateFormat(dir, { migrate: true, root: dir })).toBeUndefined();
    expect(await Promise.all(['state.json', 'budget.json'].map(async (f) => (await stat(join(dir, f))).mtimeMs))).toEqual(mtimes);
  });

  it.each(EARLIER)('migrates format %i again over files a killed migration already rewrote, to the same bytes', async (format) => {
    await cp(join(FIXTURES, `format-${format}/project/.changelog`), dir, { recursive: true });
    const stateBefore = await readFile(join(dir, 'state.json'), 'utf8');
    await openStateFormat(dir, { migrate: true, root: dir });
    const once = { state: await readFile(join(dir, 'state.json'), 'utf8'), budget: await readFile(join(dir, 'budget.json'), 'utf8') };
    // As after a kill between the files: the others migrated, state.json still the older format.
    await cp(join(FIXTURES, `format-${format}/project/.changelog/state.json`), join(dir, 'state.json'));
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(stateBefore);
    await openStateFormat(dir, { migrate: true, root: dir });
    expect({ state: await readFile(join(dir, 'state.json'), 'utf8'), budget: await readFile(join(dir, 'budget.json'), 'utf8') }).toEqual(once);
  });

  it('writes nothing through a state directory that is a symbolic link out of the project', async () => {
    const outside = join(dir, 'outside');
    const project = join(dir, 'project');
    await cp(join(FIXTURES, 'format-1/project/.changelog'), outside, { recursive: true });
    await mkdir(project);
    await symlink(outside, join(project, '.changelog'));
    const before = await readFile(join(outside, 'state.json'), 'utf8');
    await expect(openStateFormat(join(project, '.changelog'), { migrate: true, root: project })).rejects.toMatchObject({ code: 'E_OUTSIDE_PROJECT' });
    expect(await readFile(join(outside, 'state.json'), 'utf8')).toBe(before);
  });

  it('reads an older format unmigrated for a dry run, and writes nothing', async () => {
    await cp(join(FIXTURES, 'format-1/project/.changelog'), dir, { recursive: true });
    const before = await readFile(join(dir, 'state.json'), 'utf8');
    expect(await openStateFormat(dir, { migrate: false, root: dir })).toEqual({ from: 1, to: STATE_FORMAT, written: [] });
    expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(before);
  });
});
