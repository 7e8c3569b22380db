// `changelog-sync push` as a user runs it, against the emulator in this process: two real CLI
// pushes at once (the lock between processes); the daily ledger shared by runs, deferral
// (exit 4), the dry-run plan, invalid files (exit 5) through the push command run in the
// test's process as the CLI runs it (helpers/process/command.ts).
import { hostname } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { runCommand } from '../../helpers/process/command.js';
import { runCli, spawnCli } from '../../helpers/process/cli.js';
import { expectEachOnceAndIntact, writeEntries, writeEntry } from '../../helpers/sync/entries.js';
import { useProject } from '../../helpers/service/project.js';

// Several runs per test, on two shared cores.
vi.setConfig({ testTimeout: 120_000 });

const p = useProject({ name: 'CLI', token: 'cli-token' });

const ledgerTotal = async () =>
  (JSON.parse(await readFile(join(p.dir, '.changelog/budget.json'), 'utf8')) as { ledger: Array<[number, number]> }).ledger.reduce((s, [, c]) => s + c, 0);
const counted = () => p.emu.log.filter((r) => r.workspace && r.status !== 429).length;

describe('two pushes at once on one content directory', () => {
  it('the second fails fast with E_LOCKED naming the holder; the first completes; no duplicate', async () => {
    const originals = await writeEntries(p.content, 3);
    // The service holds every request until the second push is over.
    let resume!: () => void;
    p.emu.faults.pause = new Promise<void>((resolve) => (resume = resolve));
    const first = spawnCli(['push'], { cwd: p.dir, env: p.env });
    // The first holds the lock before its first request.
    await new Promise<void>((resolve) => p.emu.events.once('request', () => resolve()));
    const second = await runCli(['push'], { cwd: p.dir, env: p.env });
    resume();
    const one = await first.done;
    expect(second.code).toBe(1);
    // The lock named relative to the working directory the CLI was started in (the project).
    expect(second.stderr).toContain(`error E_LOCKED: .changelog/lock: another changelog-sync process holds the lock of this content directory: pid ${first.child.pid} on host "${hostname()}", running \`push\` since 20`);
    expect(second.stderr).toContain('fix: wait for it to finish and run again');
    expect(one.code, one.stderr).toBe(0);
    expect(p.emu.log.filter((r) => r.path === '/api/workspace')).toHaveLength(1); // the second sent nothing
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('the day: one ledger for every run', () => {
  it('is kept in .changelog/budget.json across runs, counting every request', async () => {
    await writeEntries(p.content, 2);
    const plan = await runCommand((config, reporter) => pushCommand(config, reporter, { dryRun: true }), { cwd: p.dir, env: p.env, json: true });
    expect((JSON.parse(plan.stdout) as { dayRemaining: number }).dayRemaining).toBe(1440 - 2);
    const pushed = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env, json: true });
    expect(pushed.code).toBe(0);
    expect((JSON.parse(pushed.stdout) as { dayRemaining: number }).dayRemaining).toBe(1440 - counted());
    expect(await ledgerTotal()).toBe(counted());
  });

  it('a push the day cannot cover sends what fits, oldest first, and exits 4 naming the rest', async () => {
    const originals = await writeEntries(p.content, 6);
    // Earlier runs today used 1,433 of 1,440: 7 left. 2 reads to plan, 1 kept to reconcile: 4 POSTs.
    const minute = Math.floor(Date.now() / 60_000);
    await mkdir(join(p.dir, '.changelog'), { recursive: true });
    await writeFile(join(p.dir, '.changelog/budget.json'), JSON.stringify({ ledger: [[minute - 90, 1000], [minute, 433]] }));
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('Pushed 4 new entries, 2 deferred');
    expect(r.stdout).toMatch(/… entries\/2026-01-05-entry-5\.md: deferred to the next run: the day's request budget cannot cover it/);
    expect(r.stdout).toMatch(/… entries\/2026-01-06-entry-6\.md: deferred to the next run/);
    // The four oldest are sent (which four, not the order they reach the service: four POSTs
    // are in flight at once, and each is checked against the lock and lease just before it leaves).
    expect(p.emu.log.filter((l) => l.method === 'POST').map((l) => l.slug).sort()).toEqual(['entry-1-things', 'entry-2-things', 'entry-3-things', 'entry-4-things']);
    expect(await ledgerTotal()).toBe(1433 + 6);

    // The next day (the ledger's entries are older than 24 hours): the rest goes.
    await writeFile(join(p.dir, '.changelog/budget.json'), JSON.stringify({ ledger: [[minute - 1441, 1440]] }));
    const next = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env });
    expect(next.code, next.stdout).toBe(0);
    await expectEachOnceAndIntact(p, p.content, originals);
  });
});

describe('push --dry-run', () => {
  it('prints the exact plan and sends no mutating request', async () => {
    await writeEntries(p.content, 3);
    await writeEntry(p.content, 'weekly-a', '---\ntitle: Weekly fixes\npublish_at: 2026-01-02\n---\n\nText.\n');
    const r = await runCommand((config, reporter) => pushCommand(config, reporter, { dryRun: true }), { cwd: p.dir, env: p.env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'Plan (dry run, nothing sent): push 4 new entries, oldest first, in at most 5 requests (4 POST /api/entry, and one GET /api/entries only if an answer is lost or lacks the identifier); 1438 requests left today',
    );
    // Each file's line, then the HTML it would be sent with (test/cli/commands/push-media.test.ts).
    expect(lines.slice(1).filter((l) => /^ {2}\d+\. /.test(l)).map((l) => l.replace(/at \S+Z$/, 'at T'))).toEqual([
      '  1. entries/2026-01-01-entry-1.md -> POST /api/entry slug=entry-1-things (from the title), budget allows it at T',
      '  2. entries/2026-01-02-entry-2.md -> POST /api/entry slug=entry-2-things (from the title), budget allows it at T',
      '  3. entries/weekly-a.md -> POST /api/entry slug=weekly-fixes (from the title), budget allows it at T',
      '  4. entries/2026-01-03-entry-3.md -> POST /api/entry slug=entry-3-things (from the title), budget allows it at T',
    ]);
    expect(lines.slice(lines.findIndex((l) => l.startsWith('  3. ')) + 1, lines.findIndex((l) => l.startsWith('  4. ')))).toEqual(['     html:', '       <p>Text.</p>']);
    expect(p.emu.log.filter((l) => l.method !== 'GET')).toEqual([]);
    expect(p.store.listEntries(p.ws)).toEqual([]);
  });
});

describe('invalid files', () => {
  it('are reported with file, field and fix (exit 5); the valid ones are pushed', async () => {
    await writeEntry(p.content, 'bad', '---\ntitle: Bad\npublish_at: 22/11/2026\n---\n\nText.\n');
    await writeEntry(p.content, 'good', '---\ntitle: Good\n---\n\nText.\n');
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: p.dir, env: p.env });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain('Pushed 1 new entry, 1 rejected');
    // Each problem once, on stderr, worded as check words it; the summary names the file only.
    expect(r.stderr).toContain('error: content/entries/bad.md:3: publish_at: must be a date written YYYY-MM-DD (fix: write the date as YYYY-MM-DD, e.g. `publish_at: 2026-11-22`)');
    expect(r.stdout).toContain('  x entries/bad.md: not sent (1 problem, listed above)');
    expect(`${r.stdout}${r.stderr}`.split('must be a date written').length - 1).toBe(1);
    expect(p.store.listEntries(p.ws).map((e) => e.slug)).toEqual(['good']);
  });
});
