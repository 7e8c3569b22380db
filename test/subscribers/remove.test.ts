// Removing subscribers with the real client against the real emulator over HTTP.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangelogClient } from '../../src/service/client.js';
import { NetworkError } from '../../src/core/errors.js';
import { RateBudget } from '../../src/service/rate-budget.js';
import { readSubscriberCsv } from '../../src/subscribers/csv-read.js';
import { removeSubscribers, targetsFromArguments, targetsFromCsv } from '../../src/subscribers/remove.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/subscribers/', import.meta.url));

let fx: EmulatorFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function withSubscribers(...emails: string[]): Promise<EmulatorFixture> {
  const f = await emulatorFixture();
  for (const email of emails) f.ws.subscribers.push({ email, name: '', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
  return f;
}

describe('targets', () => {
  it('normalises, de-duplicates and reports bad input by argument or line', async () => {
    expect(targetsFromArguments([' Ann@Example.COM ', 'bad', 'ann@example.com', ''])).toEqual({
      targets: [{ email: 'Ann@example.com', argument: 1 }],
      skipped: [
        { email: 'bad', argument: 2, reason: 'invalid-email', message: '"bad" is not a valid email address' },
        { email: 'ann@example.com', argument: 3, reason: 'duplicate', message: 'the same address as argument 1' },
        { email: '', argument: 4, reason: 'missing-email', message: 'no email address' },
      ],
    });
    const fromFile = targetsFromCsv(await readSubscriberCsv(`${FIXTURES}remove.csv`));
    expect(fromFile.targets).toEqual([
      { email: 'ada@example.com', line: 2 },
      { email: 'GRACE@example.org', line: 3 },
      { email: 'nobody@example.com', line: 4 },
    ]);
    expect(fromFile.skipped.map((s) => [s.line, s.reason])).toEqual([
      [5, 'invalid-email'],
      [6, 'duplicate'],
    ]);
  });
});

describe('removeSubscribers', () => {
  it('deletes in batches; removed comes from the answer, not found is the rest', async () => {
    fx = await withSubscribers('ada@example.com', 'grace@example.org', 'keep@example.com');
    const targets = targetsFromCsv(await readSubscriberCsv(`${FIXTURES}remove.csv`));
    const batches: string[] = [];
    const r = await removeSubscribers({ client: fx.client(), targets, batchSize: 2, onBatch: (b, total) => batches.push(`${b.index}/${total} ${b.status} ${b.removed}/${b.notFound}`) });
    expect(r.removed.map((t) => [t.line, t.email])).toEqual([
      [2, 'ada@example.com'],
      [3, 'GRACE@example.org'], // the service matched it case-insensitively
    ]);
    expect(r.notFound).toEqual([{ email: 'nobody@example.com', line: 4 }]);
    expect(batches).toEqual(['1/2 done 2/0', '2/2 done 0/1']);
    expect(fx.emu.log.map((x) => x.method)).toEqual(['DELETE', 'DELETE']);
    expect(fx.ws.subscribers.map((s) => s.email)).toEqual(['keep@example.com']);
    expect(r.requests).toBe(2);
  });

  it('--dry-run: one GET, no DELETE, and the same split', async () => {
    fx = await withSubscribers('ada@example.com');
    const r = await removeSubscribers({ client: fx.client(), targets: targetsFromArguments(['ada@example.com', 'zed@example.com']), dryRun: true });
    expect(r.removed.map((t) => t.email)).toEqual(['ada@example.com']);
    expect(r.notFound.map((t) => t.email)).toEqual(['zed@example.com']);
    expect(fx.emu.log.map((x) => `${x.method} ${x.path}`)).toEqual(['GET /api/subscribers']);
    expect(fx.ws.subscribers).toHaveLength(1);
  });

  it('a failed batch is reported with its addresses and stops the rest; earlier removals stay reported', async () => {
    let n = 0;
    fx = await emulatorFixture({ faults: { serverErrorRate: 0.5, random: () => (++n === 2 ? 0 : 1) } });
    for (const e of ['a@example.com', 'b@example.com', 'c@example.com']) fx.ws.subscribers.push({ email: e, name: '', verified_at: null, created_at: '2025-01-01T00:00:00.000000Z' });
    const r = await removeSubscribers({ client: fx.client(), targets: targetsFromArguments(['a@example.com', 'b@example.com', 'c@example.com']), batchSize: 1 });
    expect(r.removed.map((t) => t.email)).toEqual(['a@example.com']);
    expect(r.failed.map((f) => [f.email, f.status, f.code ?? null])).toEqual([
      ['b@example.com', 'failed', 'E_SERVICE'],
      ['c@example.com', 'not-sent', null],
    ]);
    expect(r.failed[0]!.message).toContain('the service may have removed it');
  });

  it('a lost answer: one GET tells which addresses are gone, so the report is exact', async () => {
    fx = await withSubscribers('a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com');
    const f = fx;
    /** Loses the answer to the second DELETE: after the service removed them (`after`), or before it saw the request. */
    const losing = (after: boolean) => {
      let deletes = 0;
      return new (class extends ChangelogClient {
        override async removeSubscribers(emails: string[]): Promise<string[]> {
          if (++deletes === 2 && !after) throw new NetworkError('DELETE /api/subscribers: no response (ECONNREFUSED)');
          const removed = await super.removeSubscribers(emails);
          if (deletes === 2) throw new NetworkError('DELETE /api/subscribers: no response (ECONNRESET: socket hang up)');
          return removed;
        }
      })({ baseUrl: f.emu.url, token: f.token });
    };
    const committed = losing(true);
    try {
      const r = await removeSubscribers({ client: committed, targets: targetsFromArguments(['a@example.com', 'b@example.com', 'c@example.com']), batchSize: 2 });
      expect(r.failed).toEqual([]);
      expect(r.removed.map((t) => [t.email, t.confirmedByList ?? false])).toEqual([
        ['a@example.com', false],
        ['b@example.com', false],
        ['c@example.com', true],
      ]);
      expect(r.batches.map((b) => [b.index, b.removed])).toEqual([
        [1, 2],
        [2, 1],
      ]);
      expect(r.requests).toBe(3); // DELETE, DELETE (answer lost), GET
    } finally {
      await committed.close();
    }
    const unseen = losing(false);
    try {
      const r = await removeSubscribers({ client: unseen, targets: targetsFromArguments(['d@example.com', 'e@example.com']), batchSize: 1 });
      expect(r.removed.map((t) => t.email)).toEqual(['d@example.com']);
      expect(r.failed.map((t) => [t.email, t.status])).toEqual([['e@example.com', 'failed']]);
      expect(r.failed[0]!.message).toContain('checked: it is still on the service');
      expect(f.ws.subscribers.map((x) => x.email)).toEqual(['e@example.com']);
    } finally {
      await unseen.close();
    }
  });

  it('defers what the day budget cannot carry', async () => {
    fx = await withSubscribers('a@example.com', 'b@example.com');
    const budget = new RateBudget({ ledger: [[Math.floor(Date.now() / 60_000), 1439]] });
    const r = await removeSubscribers({ client: fx.client({ budget }), targets: targetsFromArguments(['a@example.com', 'b@example.com']), batchSize: 1 });
    expect(r.removed.map((t) => t.email)).toEqual(['a@example.com']);
    expect(r.failed.map((f) => [f.email, f.status])).toEqual([['b@example.com', 'deferred']]);
  });
});
