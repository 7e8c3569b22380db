// `changelog-sync subscribers ...` against the real emulator over HTTP: each command function
// run in the test's process as the CLI runs it (helpers/process/command.ts); the real CLI as a child
// process for what commander checks (a bad --batch-size). --help: test/cli/conventions.test.ts.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorFaults } from '../../../src/emulator/faults.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { subscribersExportCommand } from '../../../src/cli/subscribers/export.js';
import { subscribersImportCommand, type ImportCommandOptions } from '../../../src/cli/subscribers/import.js';
import { subscribersListCommand } from '../../../src/cli/subscribers/list.js';
import { subscribersRemoveCommand, type RemoveCommandOptions } from '../../../src/cli/subscribers/remove.js';
import { runCli, tempDir, type CliResult } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { listContaining, objectWith } from '../../helpers/matchers.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/subscribers/', import.meta.url));
const TOKEN = 'subscribers-test-token';
const WINDOW_MS = 100;
// A bound for a busy 2-core machine (a limit, not a timing assertion).
const SLOW = { timeout: 180_000 };

let emu: RunningEmulator;
let ws: EmulatorWorkspace;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

async function start(faults: EmulatorFaults = {}): Promise<void> {
  const store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Subscribers', tokens: [TOKEN] });
  ws.subscribers.push({ email: 'existing.member@example.com', name: 'Existing Member', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
  emu = await startEmulator({ port: 0, store, faults, limits: { perMinute: 60, perDay: 1440, windowMs: WINDOW_MS } });
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN, CHANGELOG_RATE_WINDOW_MS: String(WINDOW_MS) };
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await emu?.close();
  await cleanup();
});

/** `changelog-sync [--json] subscribers import|list|remove|export ...` in the project, with more environment. */
type Extra = { env?: Record<string, string>; json?: boolean };
const run = (body: Parameters<typeof runCommand>[0], extra: Extra = {}): Promise<CliResult> => runCommand(body, { cwd: dir, env: { ...env, ...extra.env }, json: extra.json });
const importing = (options: ImportCommandOptions, extra?: Extra) => run((config, reporter) => subscribersImportCommand(config, reporter, options), extra);
const listing = (options: { csv?: boolean }, extra?: Extra) => run((config, reporter) => subscribersListCommand(config, reporter, options), extra);
const removing = (options: RemoveCommandOptions, extra?: Extra) => run((config, reporter) => subscribersRemoveCommand(config, reporter, options), extra);
const exporting = (options: { out?: string }, extra?: Extra) => run((config, reporter) => subscribersExportCommand(config, reporter, options), extra);
const mutating = () => emu.log.filter((r) => r.method !== 'GET');
const all = (r: CliResult) => r.stdout + r.stderr;

describe('subscribers import', SLOW, () => {
  it('imports the BOM/semicolon/CRLF fixture: per-batch progress, added and skipped with lines and reasons, exit 5', async () => {
    await start();
    const r = await importing({ file: join(FIXTURES, 'bom-semicolon-crlf.csv'), verifiedColumn: 'confirmed_at' });
    expect(r.code).toBe(5); // invalid rows reported
    expect(r.stderr).toContain('batch 1/1 (lines 2-6, 5 rows): 5 added');
    expect(r.stdout).toMatch(/, 10 rows: 5 subscribers added, 5 skipped \(3 invalid, 2 duplicate or already subscribed\), 0 failed \(1 batch of up to \d+; 2 requests/);
    expect(r.stdout).toContain('  line 3  Jose.Garcia@example.org  José García  verified_at 2024-03-02');
    expect(r.stdout).toContain('  line 6  multi.line@example.org  Maja Nowak Kowalska  verified_at 2024-03-05');
    expect(r.stdout).toMatch(/duplicate in the file: 1 row: the same address as line 2\n {4}line 9 {2}ZOE\.MARTIN@example\.com/);
    expect(r.stdout).toMatch(/invalid email address \(column "Email Address"\): 1 row\n {4}fix: .*\n {4}line 10 {2}not-an-email/);
    expect(r.stdout).toContain('"31/02/2024" is not a date in the form YYYY-MM-DD');
    expect(r.stdout).toMatch(/refused by the consent rule: 1 row: .*\n {4}fix: .*\n {4}line 12 {2}noor@example\.com/);
    expect(r.stdout).toMatch(/already a subscriber: 1 row\n {4}line 13 {2}existing\.member@example\.com/);
    expect(ws.subscribers).toHaveLength(6);
    expect(all(r)).not.toContain(TOKEN);
  });

  it('consent: rows without a date are refused with the reason and nothing is sent; --verified-at today sends them', async () => {
    await start();
    const refused = await importing({ file: join(FIXTURES, 'no-dates.csv') });
    expect(refused.code).toBe(5);
    expect(refused.stdout).toContain('0 subscribers added, 3 skipped (3 invalid)');
    expect(refused.stdout).toContain('the service records a subscriber sent without verified_at as verified today');
    expect(refused.stdout).toContain('pass --verified-at YYYY-MM-DD|today');
    expect(mutating()).toEqual([]);

    const declared = await importing({ file: join(FIXTURES, 'no-dates.csv'), verifiedAt: 'today' });
    expect(declared.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(ws.subscribers.slice(1).map((s) => s.verified_at)).toEqual(Array(3).fill(`${today}T00:00:00.000000Z`));
  });

  it('--dry-run sends no mutating request, for import and for remove; --json prints one document', async () => {
    await start();
    const plan = await importing({ file: join(FIXTURES, 'comma-quoted.csv'), verifiedColumn: 'verified_at', dryRun: true }, { json: true });
    expect(plan.code).toBe(5);
    const doc = JSON.parse(plan.stdout) as { command: string; dryRun: boolean; batches: Array<{ status: string; size: number }>; skipped: unknown[]; added: unknown[] };
    expect(doc).toMatchObject({ command: 'subscribers import', dryRun: true, added: [] });
    expect(doc.batches).toEqual([expect.objectContaining({ status: 'planned', size: 5 })]);
    expect(doc.skipped).toHaveLength(6);
    const removal = await removing({ emails: ['existing.member@example.com', 'nobody@example.com'], dryRun: true });
    expect(removal.code).toBe(0);
    expect(removal.stdout).toContain('Plan: remove 1 subscriber of 2 asked for (1 not subscribed)');
    expect(emu.log.map((x) => x.method)).toEqual(['GET', 'GET']);
    expect(ws.subscribers).toHaveLength(1);
  });

  it('10,000 rows with the default batch size: exact counts, inside the day budget, no 429', async () => {
    await start();
    const lines = ['Email,Name,confirmed_at'];
    for (let i = 1; i <= 10_000; i++) lines.push(`member${String(i).padStart(5, '0')}@example.org,Member ${i},2024-02-0${(i % 9) + 1}`);
    lines.push('member00001@example.org,Again,2024-02-01', 'existing.member@example.com,Existing,2024-02-01');
    await writeFile(join(dir, 'big.csv'), `${lines.join('\r\n')}\r\n`);
    const r = await importing({ file: 'big.csv', verifiedColumn: 'confirmed_at' }, { json: true });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { rows: number; added: unknown[]; skipped: Array<{ reason: string }>; failed: unknown[]; notSent: unknown[]; batchSize: number; requests: number };
    expect(doc.rows).toBe(10_002);
    expect(doc.added).toHaveLength(10_000);
    expect(doc.skipped.map((s) => s.reason)).toEqual(['duplicate', 'exists']);
    expect(doc.failed).toEqual([]);
    expect(doc.notSent).toEqual([]);
    expect(doc.batchSize).toBe(100);
    expect(doc.requests).toBe(101);
    expect(emu.log.filter((x) => x.method === 'POST')).toHaveLength(100);
    expect(emu.log.length).toBeLessThanOrEqual(1440);
    expect(emu.log.filter((x) => x.status === 429)).toEqual([]);
    expect(ws.subscribers).toHaveLength(10_001);
  });

  it('defers what the day budget (persisted in .changelog/budget.json) cannot carry: exit 4', async () => {
    await start();
    await mkdir(join(dir, '.changelog'), { recursive: true });
    await writeFile(join(dir, '.changelog/budget.json'), JSON.stringify({ ledger: [[Math.floor(Date.now() / 60_000), 1437]] }));
    const lines = ['email,name'];
    for (let i = 1; i <= 500; i++) lines.push(`p${i}@example.com,P ${i}`);
    await writeFile(join(dir, 'list.csv'), `${lines.join('\n')}\n`);
    const r = await importing({ file: 'list.csv', verifiedAt: '2024-01-01', batchSize: 100 });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('200 subscribers added');
    expect(r.stdout).toContain('Not sent (300): 300 deferred: the day\'s request budget is spent');
    expect(r.stderr).toContain('batch 3/5 (lines 202-301, 100 rows): deferred');
    expect(ws.subscribers).toHaveLength(201);
  });

  it('a failed batch: what was added is still reported, the failure listed, exit 1', async () => {
    let n = 0;
    await start({ serverErrorRate: 0.5, random: () => (++n === 3 ? 0 : 1) });
    const lines = ['email,name'];
    for (let i = 1; i <= 5; i++) lines.push(`p${i}@example.com,P ${i}`);
    await writeFile(join(dir, 'list.csv'), `${lines.join('\n')}\n`);
    const r = await importing({ file: 'list.csv', verifiedAt: '2024-01-01', batchSize: 2 });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('2 subscribers added, 0 skipped, 2 failed, 1 not sent');
    expect(r.stdout).toMatch(/Added \(2\):\n {2}line 2 {2}p1@example\.com/);
    expect(r.stdout).toMatch(/Failed \(2\):\n {2}batch 2 \(lines 4-5\): E_SERVICE: .*500/);
    expect(r.stdout).toContain('checked: it is not on the service');
    expect(r.stderr).toContain('batch 3/3 (lines 6-6, 1 row): not sent: an earlier batch failed');
  });

  it('bad input: file, line, field and fix, before any request; bad options are usage errors', async () => {
    await start();
    await writeFile(join(dir, 'nomail.csv'), 'Mail,Name\nann@example.com,Ann\n');
    const r = await importing({ file: 'nomail.csv', verifiedAt: 'today' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_VALIDATION: nomail.csv:1: no email column in the header ("Mail", "Name")');
    expect(r.stderr).toContain('fix: name the address column "email", "Email Address", "E-mail" (any case)');
    const date = await importing({ file: 'nomail.csv', verifiedAt: '2024-02-30' });
    expect(date.code).toBe(2);
    expect(date.stderr).toContain('error E_USAGE: --verified-at: "2024-02-30" is not a date');
    const size = await runCli(['subscribers', 'import', 'nomail.csv', '--batch-size', '0'], { cwd: dir, env });
    expect(size.code).toBe(2);
    expect(size.stderr).toContain('--batch-size must be a whole number of at least 1');
    expect(emu.log).toEqual([]);
  });
});

describe('subscribers list, remove, export', SLOW, () => {
  it('list: a table, --json, --csv', async () => {
    await start();
    ws.subscribers.push({ email: 'ada@example.com', name: '=1+2', verified_at: '2024-05-06T00:00:00.000000Z', created_at: '2025-02-01T00:00:00.000000Z' });
    const table = await listing({});
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(
      [
        '2 subscribers (1 verified, 1 unverified)',
        'email                        name             verified    created',
        'existing.member@example.com  Existing Member  unverified  2025-01-01',
        'ada@example.com              =1+2             2024-05-06  2025-02-01',
        '',
      ].join('\n'),
    );
    const json = await listing({}, { json: true });
    expect(JSON.parse(json.stdout)).toMatchObject({ command: 'subscribers list', count: 2, subscribers: [{ email: 'existing.member@example.com' }, { email: 'ada@example.com', name: '=1+2' }] });
    const csv = await listing({ csv: true });
    expect(csv.stdout).toBe('email,name,verified_at,created_at\nexisting.member@example.com,Existing Member,,2025-01-01T00:00:00.000000Z\nada@example.com,\'=1+2,2024-05-06T00:00:00.000000Z,2025-02-01T00:00:00.000000Z\n');
  });

  it('remove: by address or --file; removed from the answer, not found, invalid input reported', async () => {
    await start();
    ws.subscribers.push({ email: 'ada@example.com', name: 'Ada', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    ws.subscribers.push({ email: 'grace@example.org', name: 'Grace', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    const byArgs = await removing({ emails: ['Existing.Member@EXAMPLE.com', 'nobody@example.com'] });
    expect(byArgs.code).toBe(0);
    expect(byArgs.stdout).toMatch(/^Removed 1 subscriber of 2 asked for: 1 not found, 0 failed/);
    expect(byArgs.stdout).toContain('  - Existing.Member@example.com (argument 1)');
    expect(byArgs.stdout).toContain('  ? nobody@example.com (argument 2)');
    const byFile = await removing({ emails: [], file: join(FIXTURES, 'remove.csv') });
    expect(byFile.code).toBe(5); // one invalid address in the file
    expect(byFile.stdout).toContain('  - ada@example.com (line 2)\n  - GRACE@example.org (line 3)');
    expect(byFile.stdout).toContain('  ? nobody@example.com (line 4)');
    expect(byFile.stdout).toContain('  line 5  not-an-email: is not a valid email address');
    expect(ws.subscribers).toEqual([]);
    expect(mutating().map((x) => x.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('export: --out writes the file; never inside content/', async () => {
    await start();
    const ok = await exporting({ out: 'subscribers.csv' });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Exported 1 subscriber to subscribers.csv');
    expect(await readFile(join(dir, 'subscribers.csv'), 'utf8')).toBe('\uFEFFemail,name,verified_at,created_at\r\nexisting.member@example.com,Existing Member,,2025-01-01T00:00:00.000000Z\r\n');
    const refused = await exporting({ out: 'content/_data/subscribers.csv' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--out content/_data/subscribers.csv is inside the content directory (committed to git): subscriber data must not be committed or published');
    expect(emu.log).toHaveLength(1);
  });
});

describe('in GitHub Actions', SLOW, () => {
  it('masks every address in human and JSON output, counts only in the job summary, and refuses to export to the job log', async () => {
    await start();
    const summary = join(dir, 'summary.md');
    const gha = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const imported = await importing({ file: join(FIXTURES, 'bom-semicolon-crlf.csv'), verifiedColumn: 'confirmed_at' }, { env: gha });
    expect(imported.code).toBe(5);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('### changelog-sync subscribers import');
    expect(md).toMatch(/\| added \| 5 \|/);
    expect(md).toMatch(/\| refused: no verification date \(consent\) \| 1 \|/);
    expect(md).not.toContain('@');
    expect(imported.stdout).toContain('  line 2  z***@example.com  Zoë Martin  verified_at 2024-03-01');
    expect(imported.stdout).toContain('  line 10  n***\n');
    const list = await listing({}, { env: gha });
    const json = await listing({}, { env: gha, json: true });
    const removed = await removing({ emails: ['zoe.martin@example.com', 'nobody@example.com'], dryRun: true }, { env: gha });
    expect(JSON.parse(json.stdout)).toMatchObject({ masked: true, subscribers: listContaining([objectWith({ email: 'z***@example.com' })]) });
    expect(removed.stdout).toContain('  - z***@example.com (argument 1)');
    for (const r of [imported, list, json, removed]) {
      for (const email of ['zoe.martin@example.com', 'Jose.Garcia@example.org', 'existing.member@example.com', 'not-an-email', 'nobody@example.com', 'ZOE.MARTIN']) {
        expect(all(r)).not.toContain(email);
      }
    }
    const stdout = await exporting({}, { env: gha });
    expect(stdout.code).toBe(2);
    expect(stdout.stderr).toContain('in GitHub Actions stdout is the job log');
    expect(stdout.stdout).not.toContain('@example'); // only the runner's ::add-mask:: line for the token
    const file = await exporting({ out: 'subs.csv' }, { env: gha });
    expect(file.code).toBe(0);
    expect(await readFile(join(dir, 'subs.csv'), 'utf8')).toContain('zoe.martin@example.com');
  });
});
