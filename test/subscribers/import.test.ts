// Importing subscribers with the real client against the real emulator over HTTP:
// the fixtures row by row, the consent rule, batches inside the rate budget (10,000
// rows), failed and lost batches, and a dry run that sends nothing.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangelogClient } from '../../src/service/client.js';
import { NetworkError } from '../../src/core/errors.js';
import { RateBudget } from '../../src/service/rate-budget.js';
import type { NewSubscriber, Subscriber } from '../../src/service/schemas.js';
import { parseSubscriberCsv, readSubscriberCsv } from '../../src/subscribers/csv-read.js';
import { CONSENT_MESSAGE, importSubscribers } from '../../src/subscribers/import.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';
import { textContaining } from '../helpers/matchers.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/subscribers/', import.meta.url));

let fx: EmulatorFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** `n` people, header `email,name,confirmed_at`; `row(i)` may override a line. */
function peopleCsv(n: number, row: (i: number) => string | undefined = () => undefined): Buffer {
  const lines = ['email,name,confirmed_at'];
  for (let i = 1; i <= n; i++) lines.push(row(i) ?? `person${String(i).padStart(5, '0')}@example.com,Person ${i},2024-01-02`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

const mutating = (f: EmulatorFixture) => f.emu.log.filter((r) => r.method !== 'GET');

describe('the fixtures, row by row', () => {
  it('BOM + semicolons + CRLF: added, duplicate, invalid, malformed date, no date, existing, with lines', async () => {
    fx = await emulatorFixture();
    fx.ws.subscribers.push({ email: 'existing.member@example.com', name: 'Existing', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    const csv = await readSubscriberCsv(`${FIXTURES}bom-semicolon-crlf.csv`, { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client(), csv });

    expect(r.added.map((a) => [a.line, a.email, a.name, a.verified_at])).toEqual([
      [2, 'zoe.martin@example.com', 'Zoë Martin', '2024-03-01'],
      [3, 'Jose.Garcia@example.org', 'José García', '2024-03-02'],
      [4, 'li.lei@example.com', '雷 李', '2024-03-03'],
      [5, 'ann.oneil@example.com', "Ann; Jr. O'Neil", '2024-03-05'],
      [6, 'multi.line@example.org', 'Maja Nowak Kowalska', '2024-03-05'],
    ]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([
      [9, 'duplicate'],
      [10, 'invalid-email'],
      [11, 'invalid-date'],
      [12, 'no-verification-date'],
      [13, 'exists'],
    ]);
    expect(r.skipped[0]).toMatchObject({ email: 'ZOE.MARTIN@example.com', duplicateOf: 2 });
    expect(r.skipped[1]).toMatchObject({ field: 'Email Address', message: '"not-an-email" is not a valid email address' });
    expect(r.skipped[2]).toMatchObject({ field: 'confirmed_at', message: textContaining('"31/02/2024" is not a date') });
    expect(r.skipped[3]).toMatchObject({ message: CONSENT_MESSAGE, fix: textContaining('--verified-at') });
    expect(r.failed).toEqual([]);
    expect(r.requests).toBe(2); // one GET, one POST
    // What the service holds: the service's own form of the dates sent.
    expect(fx.ws.subscribers.map((s) => [s.email, s.verified_at])).toEqual([
      ['existing.member@example.com', null],
      ['zoe.martin@example.com', '2024-03-01T00:00:00.000000Z'],
      ['Jose.Garcia@example.org', '2024-03-02T00:00:00.000000Z'],
      ['li.lei@example.com', '2024-03-03T00:00:00.000000Z'],
      ['ann.oneil@example.com', '2024-03-05T00:00:00.000000Z'],
      ['multi.line@example.org', '2024-03-05T00:00:00.000000Z'],
    ]);
  });

  it('commas + quotes: too many fields, impossible and future dates, missing address, blank row', async () => {
    fx = await emulatorFixture();
    const csv = await readSubscriberCsv(`${FIXTURES}comma-quoted.csv`, { verifiedColumn: 'verified_at' });
    const r = await importSubscribers({ client: fx.client(), csv, verifiedAt: '2024-04-01' });
    expect(r.rows).toBe(11);
    expect(r.blankRows).toBe(1);
    expect(r.added.map((a) => [a.line, a.name, a.verified_at])).toEqual([
      [2, 'Lovelace, Ada', '2024-05-06'],
      [3, 'Grace "Amazing" Hopper', '2024-05-07'],
      [4, 'Sam Taylor', '2024-05-08'],
      [6, 'Иван Петров', '2024-05-09'],
      [12, '=1+2', '2024-05-10'],
      [13, 'Nadia', '2024-04-01'], // no date of its own: the declared --verified-at
    ]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([
      [7, 'too-many-fields'],
      [8, 'invalid-date'],
      [9, 'missing-email'],
      [10, 'duplicate'],
      [11, 'invalid-date'],
    ]);
    expect(r.skipped[0]!.fix).toContain('double quotes');
    expect(r.skipped[4]!.message).toContain('is in the future');
    expect(r.added.length + r.skipped.length).toBe(r.rows);
  });
});

describe('consent', () => {
  it('refuses every row without a verification date and sends nothing; --verified-at sends the declared date', async () => {
    fx = await emulatorFixture();
    const csv = await readSubscriberCsv(`${FIXTURES}no-dates.csv`);
    const refused = await importSubscribers({ client: fx.client(), csv });
    expect(refused.added).toEqual([]);
    expect(refused.skipped.map((s) => [s.line, s.reason])).toEqual([
      [2, 'no-verification-date'],
      [3, 'no-verification-date'],
      [4, 'no-verification-date'],
    ]);
    expect(refused.skipped[0]!.message).toContain('the service records a subscriber sent without verified_at as verified today');
    expect(mutating(fx)).toEqual([]);
    expect(fx.ws.subscribers).toEqual([]);

    const declared = await importSubscribers({ client: fx.client(), csv, verifiedAt: '2025-12-24' });
    expect(declared.added).toHaveLength(3);
    expect(fx.ws.subscribers.map((s) => s.verified_at)).toEqual(Array(3).fill('2025-12-24T00:00:00.000000Z'));
  });

  it('points at a date column the file has but the user did not name', async () => {
    fx = await emulatorFixture();
    const csv = await readSubscriberCsv(`${FIXTURES}bom-semicolon-crlf.csv`);
    const r = await importSubscribers({ client: fx.client(), csv });
    expect(r.added).toEqual([]);
    const consent = r.skipped.filter((s) => s.reason === 'no-verification-date');
    expect(consent.map((s) => s.line)).toEqual([2, 3, 4, 5, 6, 11, 12, 13]);
    expect(consent[0]!.fix).toContain('pass --verified-column "confirmed_at"');
  });
});

// 10,000 rows through a compressed window take seconds; more on a busy machine.
describe('batches and the rate budget', { timeout: 120_000 }, () => {
  it('10,000 rows in batches of 10: 1,000 POSTs + 1 GET inside 1,440 a day, no 429, counts exact', async () => {
    fx = await emulatorFixture({ limits: { perMinute: 60, perDay: 1440, windowMs: 100 } });
    // 50 subscribers exist already; every 100th row repeats the row before it.
    for (let i = 1; i <= 50; i++) fx.ws.subscribers.push({ email: `person${String(i * 7).padStart(5, '0')}@example.com`, name: '', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    const csv = parseSubscriberCsv(
      peopleCsv(10_000, (i) => (i % 100 === 0 ? `PERSON${String(i - 1).padStart(5, '0')}@Example.com,Again,2024-01-02` : undefined)),
      'big.csv',
      { verifiedColumn: 'confirmed_at' },
    );
    const outcomes: string[] = [];
    const r = await importSubscribers({ client: fx.client(), csv, batchSize: 10, onBatch: (b) => outcomes.push(b.status) });
    const duplicates = 100;
    const existing = 50;
    expect(r.skipped.filter((s) => s.reason === 'duplicate')).toHaveLength(duplicates);
    expect(r.skipped.filter((s) => s.reason === 'exists')).toHaveLength(existing);
    expect(r.added).toHaveLength(10_000 - duplicates - existing);
    expect(r.failed).toEqual([]);
    expect(r.notSent).toEqual([]);
    const posts = Math.ceil(r.added.length / 10);
    expect(r.batches).toHaveLength(posts);
    expect(outcomes.every((o) => o === 'done')).toBe(true);
    expect(r.requests).toBe(posts + 1);
    expect(fx.emu.log.filter((x) => x.method === 'POST')).toHaveLength(posts);
    expect(fx.emu.log.filter((x) => x.method === 'GET')).toHaveLength(1);
    expect(fx.emu.log.length).toBeLessThanOrEqual(1440);
    expect(fx.emu.log.filter((x) => x.status === 429)).toHaveLength(0);
    expect(fx.ws.subscribers).toHaveLength(50 + r.added.length);
  });

  it('sizes batches by default so that the import fits in what is left of the day', async () => {
    fx = await emulatorFixture();
    const minute = Math.floor(Date.now() / 60_000);
    const budget = new RateBudget({ ledger: [[minute, 1435]] }); // 5 requests left today
    const csv = parseSubscriberCsv(peopleCsv(1000), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client({ budget }), csv });
    // After the GET 4 are left; one is kept for the check after a lost answer: 3 batches.
    expect(r.batchSize).toBe(334);
    expect(r.batches.map((b) => b.size)).toEqual([334, 334, 332]);
    expect(r.added).toHaveLength(1000);
    expect(r.requests).toBe(4);
    expect(r.dayRemaining).toBe(1);
  });

  it('defers the batches beyond the day budget and reports them, after adding what fits', async () => {
    fx = await emulatorFixture();
    const budget = new RateBudget({ ledger: [[Math.floor(Date.now() / 60_000), 1435]] });
    const csv = parseSubscriberCsv(peopleCsv(1000), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client({ budget }), csv, batchSize: 100 });
    expect(r.added).toHaveLength(400);
    expect(r.notSent).toHaveLength(600);
    expect(new Set(r.notSent.map((n) => n.reason))).toEqual(new Set(['deferred']));
    expect(r.notSent[0]).toMatchObject({ line: 402, batch: 5 });
    expect(r.batches.map((b) => b.status)).toEqual(['done', 'done', 'done', 'done', ...Array<string>(6).fill('deferred')]);
    expect(fx.ws.subscribers).toHaveLength(400);
    expect(fx.emu.log).toHaveLength(5);
  });
});

describe('failures', () => {
  it('a 500 stops the import; what was added is reported, the failed batch is checked, the rest not sent', async () => {
    let n = 0;
    // The third request (the second POST) gets a 500 before the emulator does anything.
    fx = await emulatorFixture({ faults: { serverErrorRate: 0.5, random: () => (++n === 3 ? 0 : 1) } });
    const csv = parseSubscriberCsv(peopleCsv(25), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client(), csv, batchSize: 10 });
    expect(r.added.map((a) => a.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(r.failed.map((f) => f.line)).toEqual([12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
    expect(r.failed[0]).toMatchObject({ batch: 2, code: 'E_SERVICE', message: textContaining('checked: it is not on the service') });
    expect(r.notSent.map((x) => [x.line, x.reason])).toEqual([22, 23, 24, 25, 26].map((l) => [l, 'not-sent']));
    expect(r.batches.map((b) => b.status)).toEqual(['done', 'failed', 'not-sent']);
    expect(fx.emu.log.map((x) => `${x.method} ${x.status}`)).toEqual(['GET 200', 'POST 200', 'POST 500', 'GET 200']);
    expect(fx.ws.subscribers).toHaveLength(10);
  });

  it('a batch the service refuses (422) is reported with its rows, and the next batches are still sent', async () => {
    fx = await emulatorFixture();
    // validator accepts a quoted local part with a space; the service does not.
    const csv = parseSubscriberCsv(peopleCsv(6, (i) => (i === 3 ? '"""john smith""@example.com",John,2024-01-02' : undefined)), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client(), csv, batchSize: 2 });
    expect(r.batches.map((b) => b.status)).toEqual(['done', 'failed', 'done']);
    expect(r.failed.map((f) => [f.line, f.code])).toEqual([
      [4, 'E_VALIDATION'],
      [5, 'E_VALIDATION'],
    ]);
    expect(r.failed[0]!.message).toContain('subscribers.0.email: The email field must be a valid email address.');
    expect(r.added.map((a) => a.line)).toEqual([2, 3, 6, 7]);
  });

  it('a lost answer: one GET finds the rows the service did add, so the report is exact', async () => {
    fx = await emulatorFixture();
    let posts = 0;
    class LosingClient extends ChangelogClient {
      override async addSubscribers(rows: NewSubscriber[]): Promise<Subscriber[]> {
        const added = await super.addSubscribers(rows);
        if (++posts === 2) throw new NetworkError('POST /api/subscribers: no response (ECONNRESET: socket hang up)');
        return added;
      }
    }
    const client = new LosingClient({ baseUrl: fx.emu.url, token: fx.token });
    try {
      const csv = parseSubscriberCsv(peopleCsv(6), 'list.csv', { verifiedColumn: 'confirmed_at' });
      const r = await importSubscribers({ client, csv, batchSize: 2 });
      expect(r.failed).toEqual([]);
      expect(r.added.map((a) => [a.line, a.confirmedByList ?? false])).toEqual([
        [2, false],
        [3, false],
        [4, true],
        [5, true],
      ]);
      expect(r.notSent.map((x) => x.line)).toEqual([6, 7]); // a connection failure stops the import
      expect(r.requests).toBe(4); // GET, POST, POST (answer lost), GET
    } finally {
      await client.close();
    }
  });

  it('the service skipping a row that became a subscriber meanwhile is reported as skipped, not added', async () => {
    fx = await emulatorFixture();
    const f = fx;
    const csv = parseSubscriberCsv(peopleCsv(4), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({
      client: f.client(),
      csv,
      batchSize: 2,
      onBatch: (b) => {
        if (b.index === 1) f.ws.subscribers.push({ email: 'person00004@example.com', name: 'Signed up meanwhile', verified_at: null, created_at: '2026-01-01T00:00:00.000000Z' });
      },
    });
    expect(r.added.map((a) => a.line)).toEqual([2, 3, 4]);
    expect(r.skipped).toEqual([{ line: 5, email: 'person00004@example.com', reason: 'exists', message: textContaining('the service did not add it') }]);
    expect(r.batches[1]).toMatchObject({ added: 1, skipped: 1 });
  });
});

describe('--dry-run', () => {
  it('reads the list, plans the batches, and sends no mutating request', async () => {
    fx = await emulatorFixture();
    fx.ws.subscribers.push({ email: 'person00002@example.com', name: '', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    const csv = parseSubscriberCsv(peopleCsv(250), 'list.csv', { verifiedColumn: 'confirmed_at' });
    const r = await importSubscribers({ client: fx.client(), csv, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.batches.map((b) => [b.status, b.size, b.firstLine, b.lastLine])).toEqual([
      ['planned', 100, 2, 102],
      ['planned', 100, 103, 202],
      ['planned', 49, 203, 251],
    ]);
    expect(r.added).toEqual([]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([[3, 'exists']]);
    expect(fx.emu.log.map((x) => `${x.method} ${x.path}`)).toEqual(['GET /api/subscribers']);
    expect(fx.ws.subscribers).toHaveLength(1);
  });
});
