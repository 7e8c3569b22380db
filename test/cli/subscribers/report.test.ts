// The subscriber commands' reports and exit codes, called directly (commands/subscribers-*.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatImport, formatImportBatch, importExitCode, importSummaryMarkdown } from '../../../src/cli/subscribers/import.js';
import { formatList } from '../../../src/cli/subscribers/list.js';
import { formatRemove, removeExitCode, removeSummaryMarkdown } from '../../../src/cli/subscribers/remove.js';
import { EXIT } from '../../../src/cli/output/exit-codes.js';
import type { ImportResult, SkippedRow } from '../../../src/subscribers/import.js';
import { emailDisplay } from '../../../src/subscribers/privacy.js';
import type { RemoveResult } from '../../../src/subscribers/remove.js';

const email = (n: number) => `person${n}@example.org`;
const PLAIN = emailDisplay(false);
const MASKED = emailDisplay(true);

/** An import of `added` rows, `invalid` and `duplicate` skipped rows, one failed batch of `failed` rows, `deferred` and `notSent` rows not sent. */
function imported(c: { added?: number; invalid?: number; duplicate?: number; failed?: number; deferred?: number; notSent?: number }, dryRun = false): ImportResult {
  let line = 1;
  const rows = (k = 0) => Array.from({ length: k }, () => ({ line: ++line, email: email(line), name: `Name ${line}`, verified_at: '2026-01-02' }));
  const skipped: SkippedRow[] = [
    ...rows(c.invalid).map((r) => ({ line: r.line, email: r.email, reason: 'invalid-email' as const, message: 'not an address', field: 'email', fix: 'correct it' })),
    ...rows(c.duplicate).map((r) => ({ line: r.line, email: r.email, reason: 'duplicate' as const, message: 'duplicate in the file', duplicateOf: 2 })),
  ];
  const added = rows(c.added).map((r) => ({ ...r, batch: 1 }));
  const failed = rows(c.failed).map((r) => ({ ...r, batch: 2, code: 'E_SERVICE' as const, message: 'the service answered 500' }));
  const notSent = [...rows(c.deferred).map((r) => ({ ...r, batch: 3, reason: 'deferred' as const })), ...rows(c.notSent).map((r) => ({ ...r, batch: 4, reason: 'not-sent' as const }))];
  const batches = [
    { index: 1, firstLine: 2, lastLine: line, size: added.length, status: dryRun ? ('planned' as const) : ('done' as const), added: added.length, skipped: 0 },
    ...(failed.length ? [{ index: 2, firstLine: 2, lastLine: line, size: failed.length, status: 'failed' as const, added: 0, skipped: 0, error: { code: 'E_SERVICE' as const, message: 'the service answered 500' } }] : []),
  ];
  return { file: 'list.csv', dryRun, delimiter: ',', columns: { email: 'email', name: 'name' }, rows: line - 1, blankRows: 0, batchSize: 100, batches, added, skipped, failed, notSent, requests: 3, dayRemaining: 9 };
}

function removed(c: { removed?: number; notFound?: number; invalid?: number; duplicate?: number; failed?: number; deferred?: number }, dryRun = false): RemoveResult {
  let n = 0;
  const targets = (k = 0) => Array.from({ length: k }, () => ({ email: email(++n), argument: n }));
  return {
    dryRun,
    batchSize: 100,
    removed: targets(c.removed),
    notFound: targets(c.notFound),
    skipped: [...targets(c.invalid).map((t) => ({ ...t, reason: 'invalid-email' as const, message: `"${t.email}" is not an address` })), ...targets(c.duplicate).map((t) => ({ ...t, reason: 'duplicate' as const, message: 'given twice' }))],
    failed: [...targets(c.failed).map((t) => ({ ...t, batch: 1, status: 'failed' as const, code: 'E_SERVICE' as const, message: 'the service answered 500' })), ...targets(c.deferred).map((t) => ({ ...t, batch: 2, status: 'deferred' as const, message: 'budget spent' }))],
    batches: [{ index: 1, size: n, status: dryRun ? 'planned' : 'done', removed: c.removed ?? 0, notFound: c.notFound ?? 0 }],
    requests: 2,
    dayRemaining: 5,
  };
}

const anyAddress = /[^\s@]+@example\.org/g;

describe('importExitCode', () => {
  it('is 5 with invalid rows, else 1 with a failed batch or rows not sent after it, else 4 with deferred rows, else 0; duplicates are not errors', () => {
    fc.assert(
      fc.property(fc.record({ added: fc.nat(2), invalid: fc.nat(1), duplicate: fc.nat(1), failed: fc.nat(1), deferred: fc.nat(1), notSent: fc.nat(1) }), (c) => {
        const code = importExitCode(imported(c));
        expect(code).toBe(c.invalid ? EXIT.INVALID : c.failed || c.notSent ? EXIT.ERROR : c.deferred ? EXIT.DEFERRED : EXIT.OK);
      }),
    );
  });
});

describe('removeExitCode', () => {
  it('is 5 with invalid input, else 1 with a failed batch, else 4 with a deferred one, else 0; not found and duplicates are not errors', () => {
    fc.assert(
      fc.property(fc.record({ removed: fc.nat(2), notFound: fc.nat(2), invalid: fc.nat(1), duplicate: fc.nat(1), failed: fc.nat(1), deferred: fc.nat(1) }), (c) => {
        const code = removeExitCode(removed(c));
        expect(code).toBe(c.invalid ? EXIT.INVALID : c.failed ? EXIT.ERROR : c.deferred ? EXIT.DEFERRED : EXIT.OK);
      }),
    );
  });
});

describe('the first line of an import', () => {
  it('says once how many rows were read, and why each skipped row was skipped', () => {
    const dry = formatImport(imported({ invalid: 2, duplicate: 1 }, true), PLAIN).split('\n')[0]!;
    expect(dry).toBe('Plan: import list.csv, 3 rows: 0 subscribers to add in 1 batch of up to 100, 3 skipped (2 invalid, 1 duplicate or already subscribed); nothing sent');
    const done = formatImport(imported({ added: 1, invalid: 2 }), PLAIN).split('\n')[0]!;
    expect(done).toBe('Imported list.csv, 3 rows: 1 subscriber added, 2 skipped (2 invalid), 0 failed (1 batch of up to 100; 3 requests, 9 left today)');
    expect(formatImport(imported({ added: 2 }), PLAIN).split('\n')[0]).toContain('2 subscribers added, 0 skipped, 0 failed');
  });
});

describe('the reports', () => {
  const importCounts = fc.record({ added: fc.nat(3), invalid: fc.nat(2), duplicate: fc.nat(2), failed: fc.nat(2), deferred: fc.nat(2), notSent: fc.nat(1) });
  const removeCounts = fc.record({ removed: fc.nat(3), notFound: fc.nat(2), invalid: fc.nat(2), duplicate: fc.nat(1), failed: fc.nat(2), deferred: fc.nat(1) });

  it('of an import name every row reported by its line and address, plain; masked, no address at all', () => {
    fc.assert(
      fc.property(importCounts, (c) => {
        const r = imported(c);
        const plain = formatImport(r, PLAIN);
        for (const row of [...r.added, ...r.skipped, ...r.failed, ...r.notSent]) expect(plain).toMatch(new RegExp(`line ${row.line}  ${row.email.replace(/[.]/g, '\\.')}`));
        const masked = formatImport(r, MASKED);
        expect(masked.match(anyAddress) ?? []).toEqual((masked.match(anyAddress) ?? []).filter((a) => a.includes('***')));
        for (const row of r.added) expect(masked).not.toContain(row.email);
      }),
    );
  });

  it('of a removal name every address by where it was given, and mask them all', () => {
    fc.assert(
      fc.property(removeCounts, (c) => {
        const r = removed(c);
        const plain = formatRemove(r, PLAIN);
        for (const t of [...r.removed, ...r.notFound, ...r.failed]) expect(plain).toContain(`${t.email} (argument ${t.argument})`);
        for (const t of r.skipped) expect(plain).toContain(`argument ${t.argument}  ${t.email}`);
        const masked = formatRemove(r, MASKED);
        for (const t of [...r.removed, ...r.notFound, ...r.failed, ...r.skipped]) expect(masked).not.toContain(t.email);
      }),
    );
  });

  it('list over a hundred rows per group in human output, and say how many more', () => {
    const r = imported({ added: 3, invalid: 130 });
    const text = formatImport(r, PLAIN);
    expect(text.match(/^ +line \d+ {2}person\d+@example\.org/gm)?.length).toBe(3 + 100);
    expect(text).toContain('… and 30 more (--json lists every row)');
  });

  it('show no control character from the data: names, addresses and messages', () => {
    const r = imported({ added: 1, failed: 1 });
    r.added[0]!.name = 'Eve\u001b[2J\r\nInjected';
    r.failed[0]!.email = 'x\u0085y@example.org';
    const list = formatList({ count: 1, verified: 1, unverified: 0, subscribers: [{ email: 'a\u0007@example.org', name: 'A\tB\u009b', verified_at: '2026-01-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z' }] }, PLAIN);
    for (const text of [formatImport(r, PLAIN), list]) {
      expect(text).not.toMatch(/[^\P{Cc}\n]/u);
    }
  });

  it('a batch line says what the batch did, or why it did not', () => {
    const b = { index: 2, firstLine: 10, lastLine: 19, size: 10, added: 7, skipped: 3 };
    expect(formatImportBatch({ ...b, status: 'done' }, 4)).toMatch(/^batch 2\/4 \(lines 10-19, 10 rows\): 7 added, 3 already subscribed$/);
    expect(formatImportBatch({ ...b, status: 'failed', error: { code: 'E_SERVICE', message: 'down' } }, 4)).toMatch(/: failed: E_SERVICE: down$/);
    expect(formatImportBatch({ ...b, status: 'deferred' }, 4)).toContain("deferred: the day's request budget is spent");
    expect(formatImportBatch({ ...b, status: 'not-sent' }, 4)).toContain('not sent: an earlier batch failed');
  });

  it('job summaries hold counts, never an address', () => {
    fc.assert(
      fc.property(importCounts, removeCounts, (a, b) => {
        const i = imported(a);
        const r = removed(b);
        const summaries = importSummaryMarkdown(i) + removeSummaryMarkdown(r);
        expect(summaries).not.toMatch(/@/);
        expect(importSummaryMarkdown(i)).toContain(`| added | ${i.added.length} |`);
        expect(removeSummaryMarkdown(r)).toContain(`| failed or not sent | ${r.failed.length} |`);
      }),
    );
  });
});
