// Every failure says what was done. The real CLI pushing to the emulator,
// stopped by a full disk (ENOSPC), a directory where a file should be (EISDIR), no permission
// (EACCES) and a token revoked in the middle of the run (401): the error names the file and
// the step, and the report (human and --json) lists each entry created before it, with its
// file and whether its identifier was written back. The rerun settles the rest, once each.
//
// ENOSPC and EACCES are injected at a failpoint that throws the system error
// (CHANGELOG_FAILPOINT_ERRNO, src/core/failpoint.ts): tests run as root, and no disk is filled.
// EISDIR is real: a directory in the place of the push journal.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli, spawnCli } from '../../helpers/process/cli.js';
import { expectEachOnceAndIntact, expectNotWrittenBack, writeEntries } from '../../helpers/sync/entries.js';
import { useProject } from '../../helpers/service/project.js';

vi.setConfig({ testTimeout: 60_000 });

const p = useProject({ name: 'Failures', token: 'fail-token' });
beforeEach(async () => {
  // One POST at a time: the failpoints' passes are then in a known order.
  await writeFile(join(p.dir, 'changelog.config.json'), JSON.stringify({ concurrency: 1 }));
});

interface StoppedJson {
  pushed: Array<{ file: string; identifier: string }>;
  pending: Array<{ file: string; reason: string; identifier?: string }>;
  created: Array<{ file: string; identifier: string; written_back: boolean }>;
  error: { code: string; message: string; file?: string; hint?: string };
}

/** The identifier the service gave the entry with this title. */
const idOf = (title: string) => p.store.listEntries(p.ws).find((e) => e.title === title)!.identifier;

describe('a full disk while pushing (ENOSPC)', () => {
  it('names the journal and the step, lists the entry created before it (written back), and the rerun sends the rest once', async () => {
    const originals = await writeEntries(p.content, 3);
    // Journal writes: 1-3 for the first file (sending, created, removed); the 4th and every later one fail.
    const failing = { ...p.env, CHANGELOG_FAILPOINT: 'journal:tmp-created:4', CHANGELOG_FAILPOINT_ERRNO: 'ENOSPC' };
    const human = await runCli(['push'], { cwd: p.dir, env: failing });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('error E_FILE: .changelog/journal.json: saving the push journal (the record of each POST, written before it is sent) failed: ENOSPC: no space left on device, write');
    expect(human.stderr).toContain('  fix: the disk is full: free some space and run the same command again');
    expect(human.stderr).not.toContain('unexpected error');
    const first = idOf('Entry 1: things');
    expect(human.stdout).toContain(`  + entries/2026-01-01-entry-1.md -> ${first} (published)`);
    expect(human.stdout).toContain("Stopped by the error below: 1 entry on the service from this run's files; 2 files not settled (listed above).");
    expect(human.stdout).toContain(`  entries/2026-01-01-entry-1.md -> ${first}: identifier written to the file`);
    expect(human.stdout).toMatch(/… entries\/2026-01-02-entry-2\.md: stopped by an error \(.*ENOSPC/);
    expect(human.stdout).toMatch(/… entries\/2026-01-03-entry-3\.md: not sent: .*ENOSPC/);
    expect(p.store.listEntries(p.ws)).toHaveLength(1);

    const rerun = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    await expectEachOnceAndIntact(p, p.content, originals);
  });

  it('--json: one document with the created entries, what was not settled, and the error', async () => {
    await writeEntries(p.content, 3);
    const r = await runCli(['--json', 'push'], { cwd: p.dir, env: { ...p.env, CHANGELOG_FAILPOINT: 'journal:tmp-created:4', CHANGELOG_FAILPOINT_ERRNO: 'ENOSPC' } });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as StoppedJson;
    expect(doc.created).toEqual([{ file: 'entries/2026-01-01-entry-1.md', identifier: idOf('Entry 1: things'), written_back: true }]);
    expect(doc.pushed.map((p) => p.file)).toEqual(['entries/2026-01-01-entry-1.md']);
    expect(doc.pending.map((p) => p.file)).toEqual(['entries/2026-01-02-entry-2.md', 'entries/2026-01-03-entry-3.md']);
    expect(doc.error).toMatchObject({ code: 'E_FILE', file: '.changelog/journal.json' });
  });

  it('a full disk at the write-back: the entry is listed as created with its identifier NOT written back, the step named', async () => {
    const originals = await writeEntries(p.content, 2);
    const r = await runCli(['--json', 'push'], { cwd: p.dir, env: { ...p.env, CHANGELOG_FAILPOINT: 'write-back:tmp-created:2', CHANGELOG_FAILPOINT_ERRNO: 'ENOSPC' } });
    expectNotWrittenBack(r, 'entries/2026-01-02-entry-2.md', idOf('Entry 2: things'), 'writing the identifier back into the file failed: ENOSPC: no space left on device, write');
    const rerun = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('no permission to save the state (EACCES)', () => {
  it('after every entry was created and written back: each listed, the state file and the step named', async () => {
    const originals = await writeEntries(p.content, 2);
    const r = await runCli(['push'], { cwd: p.dir, env: { ...p.env, CHANGELOG_FAILPOINT: 'state:tmp-created', CHANGELOG_FAILPOINT_ERRNO: 'EACCES' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_FILE: .changelog/state.json: saving the sync state failed: EACCES: permission denied, write');
    expect(r.stderr).toContain('  fix: this user may not write there: check the owner and permissions of the file and of its directory');
    expect(r.stdout).toContain("Stopped by the error below: 2 entries on the service from this run's files.");
    for (const [file, title] of [['entries/2026-01-01-entry-1.md', 'Entry 1: things'], ['entries/2026-01-02-entry-2.md', 'Entry 2: things']]) {
      expect(r.stdout).toContain(`  ${file} -> ${idOf(title!)}: identifier written to the file`);
    }
    const rerun = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('a directory in the place of the push journal (EISDIR, real)', () => {
  it('names the journal, the step and the fix; nothing is sent', async () => {
    await writeEntries(p.content, 1);
    await mkdir(join(p.dir, '.changelog/journal.json'), { recursive: true });
    const r = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_FILE: .changelog/journal.json: reading the push journal failed: EISDIR: illegal operation on a directory, read');
    expect(r.stderr).toContain('  fix: a directory is where the file should be: move the directory away and run again');
    expect(p.emu.log.filter((l) => l.method === 'POST')).toEqual([]);
  });
});

describe('a directory in the place of the entry file at the write-back (EISDIR, real)', () => {
  it('the entry is listed as created, its identifier not written back, the file and the step named; the rerun writes it and sends nothing', async () => {
    const originals = await writeEntries(p.content, 1);
    const file = join(p.content, 'entries/2026-01-01-entry-1.md');
    // The service holds the POST while the test puts a directory where the file was.
    let release!: () => void;
    const posted = new Promise<void>((resolve) =>
      p.emu.events.on('request', (rec) => {
        if (rec.method === 'POST' && !p.emu.faults.pause) {
          p.emu.faults.pause = new Promise<void>((r) => (release = r));
          resolve();
        }
      }),
    );
    const run = spawnCli(['--json', 'push'], { cwd: p.dir, env: p.env });
    await posted;
    await rm(file);
    await mkdir(file);
    release();
    const r = await run.done;
    expectNotWrittenBack(r, 'entries/2026-01-01-entry-1.md', idOf('Entry 1: things'), 'reading the file to write the identifier back failed: EISDIR: illegal operation on a directory, read');
    expect(r.stderr).not.toContain('unexpected error');

    // The writer puts the file back: the rerun writes the identifier and sends nothing.
    await rm(file, { recursive: true });
    await writeFile(file, originals.get('entries/2026-01-01-entry-1.md')!);
    const rerun = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(p.emu.log.filter((l) => l.method === 'POST')).toHaveLength(1);
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('sync stopped by a full disk in its push', () => {
  it('--json: one document with the pull, the push so far, the created entries and the error', async () => {
    await writeEntries(p.content, 3);
    const r = await runCli(['--json', 'sync', '--skip-build'], { cwd: p.dir, env: { ...p.env, CHANGELOG_FAILPOINT: 'journal:tmp-created:4', CHANGELOG_FAILPOINT_ERRNO: 'ENOSPC' } });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { command: string; pull: unknown; push: { pushed: unknown[] }; created: StoppedJson['created']; error: StoppedJson['error'] };
    expect(doc.command).toBe('sync');
    expect(doc.pull).toBeDefined();
    expect(doc.push.pushed).toHaveLength(1);
    expect(doc.created).toEqual([{ file: 'entries/2026-01-01-entry-1.md', identifier: idOf('Entry 1: things'), written_back: true }]);
    expect(doc.error).toMatchObject({ code: 'E_FILE', file: '.changelog/journal.json' });
  });
});

describe('the token revoked in the middle of the run (401)', () => {
  it('lists the entry created before it, with its file and identifier, and exits 1 with E_AUTH', async () => {
    const originals = await writeEntries(p.content, 3);
    // The first POST's answer revokes the token: the second POST gets 401.
    const revoke = (rec: { method: string; status: number }) => {
      if (rec.method === 'POST' && rec.status === 201) p.ws.tokens.splice(0, p.ws.tokens.length, 'another-token');
    };
    p.emu.events.on('response', revoke);
    const r = await runCli(['--json', 'push'], { cwd: p.dir, env: p.env });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as StoppedJson;
    expect(doc.error.code).toBe('E_AUTH');
    expect(doc.created).toEqual([{ file: 'entries/2026-01-01-entry-1.md', identifier: idOf('Entry 1: things'), written_back: true }]);
    expect(doc.pending.map((p) => p.file)).toEqual(['entries/2026-01-02-entry-2.md', 'entries/2026-01-03-entry-3.md']);
    expect(r.stderr).toContain('error E_AUTH: POST ' + p.emu.url + '/api/entry: 401 Unauthorized');

    p.emu.events.off('response', revoke);
    p.ws.tokens.splice(0, p.ws.tokens.length, 'fail-token');
    const rerun = await runCli(['push'], { cwd: p.dir, env: p.env });
    expect(rerun.code, rerun.stderr).toBe(0);
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});
