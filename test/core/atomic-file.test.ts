// The one atomic writer (src/core/atomic-file.ts): its temporary files are named by its own
// documented pattern, removed when a write fails, and swept only when their process died.
import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTempLeftovers, TEMP_FILE, writeFileAtomic, writeFileAtomicSync } from '../../src/core/atomic-file.js';

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 99_999_999;

describe('atomic writer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atomic-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes through a temporary file named by its pattern, then renames it', async () => {
    const target = join(dir, 'state.json');
    let seen: string | undefined;
    await writeFileAtomic(target, '{"a":1}\n', {
      tmpfileCreated: (tmp) => {
        seen = tmp;
      },
    });
    expect(await readFile(target, 'utf8')).toBe('{"a":1}\n');
    const name = seen!.slice(dir.length + 1);
    expect(TEMP_FILE.exec(name)?.slice(1)).toEqual(['state.json', String(process.pid)]);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('leaves the target as it was and no temporary file when tmpfileCreated throws', async () => {
    const target = join(dir, 'journal.json');
    await writeFile(target, 'before\n');
    const failing = writeFileAtomic(target, 'after\n', {
      tmpfileCreated: async () => {
        await Promise.resolve();
        throw new Error('changed meanwhile');
      },
    });
    await expect(failing).rejects.toThrow('changed meanwhile');
    expect(await readFile(target, 'utf8')).toBe('before\n');
    expect(await readdir(dir)).toEqual(['journal.json']);
  });

  it('keeps the permission bits of the file it replaces, or sets the ones asked for', async () => {
    const kept = join(dir, 'kept.md');
    await writeFile(kept, 'x');
    await chmod(kept, 0o640);
    await writeFileAtomic(kept, 'y');
    expect((await stat(kept)).mode & 0o777).toBe(0o640);
    const secret = join(dir, 'subscribers.csv');
    await writeFileAtomic(secret, 'email\n', { mode: 0o600 });
    expect((await stat(secret)).mode & 0o777).toBe(0o600);
  });

  it('sync: creates the folder, writes bytes, and throws E_FILE naming the file', () => {
    const target = join(dir, 'entries', 'a.md');
    writeFileAtomicSync(target, Buffer.from('bytes\n'), { fsync: false });
    expect(() => writeFileAtomicSync(join(dir, 'entries', 'a.md', 'below-a-file.md'), 'x')).toThrow(expect.objectContaining({ code: 'E_FILE', file: join(dir, 'entries', 'a.md', 'below-a-file.md') }));
  });

  it('sweeps the temporary files of dead processes for the targets asked, never a running one\'s or a lookalike', async () => {
    const names = [`.a.md.${DEAD_PID}.1.tmp`, `.b.json.${DEAD_PID}.2.tmp`, `.a.md.${process.pid}.3.tmp`, 'a.md.2489696104', '.a.md.tmp', 'a.md'];
    for (const n of names) await writeFile(join(dir, n), 'half');
    expect(removeTempLeftovers(dir, await readdir(dir), (target) => target.endsWith('.md'))).toEqual([`.a.md.${DEAD_PID}.1.tmp`]);
    expect((await readdir(dir)).sort()).toEqual(names.filter((n) => n !== `.a.md.${DEAD_PID}.1.tmp`).sort());
  });
});
