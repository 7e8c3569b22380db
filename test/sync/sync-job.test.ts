// A sync is one job (src/sync/sync-job.ts; docs/sync.md, "A sync is one job"): against the
// real emulator over HTTP on port 0, a sync that pulls and pushes reads the workspace once and
// the listing once (the emulator's request log), where a pull and a push run one after the
// other read each twice; a dry run reads them once too and writes nothing. A job stopped by a
// failed read has closed its other reads when it rejects (a service on port 0 that holds them).
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pull } from '../../src/sync/pull/pull.js';
import { push } from '../../src/sync/push/push.js';
import { syncWorkspace } from '../../src/sync/sync-job.js';
import { openBudgetLedger } from '../../src/sync/store/budget-ledger.js';
import { parseEntryFile } from '../../src/entry/entry-file.js';
import type { EmulatorFixture } from '../helpers/service/emulator.js';
import { useMirror } from '../helpers/sync/mirror.js';
import { writeEntry } from '../helpers/sync/entries.js';
import { runStoppedByWorkspace, type StoppedJob } from '../helpers/service/held-service.js';

let fx: EmulatorFixture;
let dir: string;
let contentDir: string;
let stateDir: string;

useMirror((mirror) => ({ fx, dir, contentDir, stateDir } = mirror));
beforeEach(async () => {
  fx.store.insertEntry(fx.ws, { title: 'Remote one', slug: 'remote-one', publish_at: '2026-01-02', content: '<p>From the service.</p>' });
  fx.store.insertEntry(fx.ws, { title: 'Remote two', slug: 'remote-two', publish_at: '2026-01-03', content: '<p>Also from the service.</p>' });
  await writeEntry(contentDir, '2026-01-05-local-news', '---\ntitle: Local news\npublish_at: 2026-01-05\nis_published: true\n---\n\nWritten here.\n');
});

/** The API requests the emulator answered, as `METHOD /path` without the query, counted. */
function requests(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of fx.emu.log) {
    if (!r.path.startsWith('/api/')) continue;
    const key = `${r.method} ${r.path.split('?')[0]}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe('syncWorkspace', () => {
  it('pulls and pushes with one workspace read and one listing, the push handed what the pull read', async () => {
    const r = await syncWorkspace({ client: fx.client(), contentDir, stateDir, push: { lease: false } });
    expect(r.pull.created.map((c) => c.file).sort()).toEqual(['entries/2026-01-02-remote-one.md', 'entries/2026-01-03-remote-two.md']);
    expect(r.push.pushed.map((p) => p.file)).toEqual(['entries/2026-01-05-local-news.md']);
    expect(requests()).toEqual({ 'GET /api/workspace': 1, 'GET /api/entries': 1, 'GET /api/tags': 1, 'POST /api/entry': 1 });
    // The pushed file carries its identifier; the state knows all three; the lock is gone.
    const pushed = parseEntryFile('f', await readFile(join(contentDir, 'entries/2026-01-05-local-news.md')));
    expect(pushed.data.identifier).toBe(r.push.pushed[0]!.identifier);
    const state = JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as { entries: Record<string, unknown> };
    expect(Object.keys(state.entries)).toHaveLength(3);
    expect(existsSync(join(stateDir, 'lock'))).toBe(false);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(3);
  });

  it('where a pull and then a push, each its own job, read the workspace and the listing twice', async () => {
    const client = fx.client();
    await pull({ client, contentDir, stateDir });
    await push({ client, contentDir, stateDir, lease: false });
    expect(requests()).toEqual({ 'GET /api/workspace': 2, 'GET /api/entries': 2, 'GET /api/tags': 1, 'POST /api/entry': 1 });
  });

  it('a second sync reads the workspace and the listing once, writes no entry file and sends nothing', async () => {
    const client = fx.client();
    await syncWorkspace({ client, contentDir, stateDir, push: { lease: false } });
    fx.emu.log.length = 0;
    const again = await syncWorkspace({ client, contentDir, stateDir, push: { lease: false } });
    // Only the state: the pushed entry's remote hash, first seen in this listing.
    expect(again.pull.writes.filter((w) => !w.startsWith('state:'))).toEqual([]);
    expect(again.push.pushed).toEqual([]);
    expect(requests()).toEqual({ 'GET /api/workspace': 1, 'GET /api/entries': 1, 'GET /api/tags': 1 });
  });

  it('a dry run plans both stages from one read of each, writes nothing and takes no lock', async () => {
    const r = await syncWorkspace({ client: fx.client(), contentDir, stateDir, dryRun: true });
    expect(r.pull.dryRun).toBe(true);
    expect(r.pull.created).toHaveLength(2);
    expect(r.push.plan.map((p) => p.file)).toEqual(['entries/2026-01-05-local-news.md']);
    expect(requests()).toEqual({ 'GET /api/workspace': 1, 'GET /api/entries': 1, 'GET /api/tags': 1 });
    expect(await readdir(join(contentDir, 'entries'))).toEqual(['2026-01-05-local-news.md']);
    expect(existsSync(stateDir)).toBe(false);
  });

  it('checks the project once before reading anything: a link out of the project sends no request', async () => {
    const { symlink } = await import('node:fs/promises');
    await symlink('/etc/hostname', join(contentDir, 'entries/2026-01-06-outside.md'));
    await expect(syncWorkspace({ client: fx.client(), contentDir, stateDir, project: { root: dir, contentDir, stateDir } })).rejects.toMatchObject({ code: 'E_OUTSIDE_PROJECT' });
    expect(requests()).toEqual({});
  });
});

describe('a sync stopped by a failed read', () => {
  let run: StoppedJob<unknown> | undefined;
  afterEach(async () => run?.close());

  it('rejects only once the listing and the tags in flight are closed: none open, nothing booked or written after', async () => {
    const ledger = await openBudgetLedger({ stateDir, windowMs: 60_000 });
    run = await runStoppedByWorkspace((client) => syncWorkspace({ client, contentDir, stateDir, push: { lease: false } }), { budget: ledger.budget });
    expect(run.outcome).toMatchObject({ status: 'rejected', reason: { code: 'E_AUTH' } });
    // Every read the job sent had settled when it rejected: none can book a slot or write the ledger later.
    expect(run.ended).toEqual({ sent: ['getWorkspace', 'listEntries', 'listTags'], pending: [], inFlight: 0, booked: 3 });
    // The service sees the two held requests closed by the client, never answered.
    expect(await run.siblingsAnswered()).toEqual([false, false]);
    // The ledger on disk counts the three requests; the final save, last, changes nothing.
    const budget = join(stateDir, 'budget.json');
    const written = await readFile(budget, 'utf8');
    expect((JSON.parse(written) as { ledger: Array<[number, number]> }).ledger.reduce((n, [, c]) => n + c, 0)).toBe(3);
    await ledger.save();
    expect(await readFile(budget, 'utf8')).toBe(written);
    expect(ledger.budget.sent).toBe(3);
  });
});
