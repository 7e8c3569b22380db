// Push's report and exit code, called directly (cli/reports/push-report.ts): pushExitCode, formatPush, reportRejected.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPush, pushExitCode, reportRejected } from '../../../src/cli/reports/push-report.js';
import type { PushResult } from '../../../src/sync/push/push-run.js';
import { EXIT } from '../../../src/cli/output/exit-codes.js';
import { captureReporter } from '../../helpers/process/reporter.js';

type PlanItem = PushResult['plan'][number];
const item = (n: number): PlanItem => ({ file: `entries/2026-01-${String(n).padStart(2, '0')}-e${n}.md`, title: `Entry ${n}`, slug: `e${n}`, derived_slug: n % 2 === 0, is_published: true });

/** A push result with `pushed`, `pending` (of which the first `deferred` are deferred) and `rejected` files. */
function result(counts: { pushed?: number; pending?: number; deferred?: number; rejected?: number }, dryRun = false): PushResult {
  let n = 0;
  const take = (k = 0) => Array.from({ length: k }, () => item(++n));
  const pushed = take(counts.pushed).map((p, i) => ({ ...p, identifier: `id-${i}`, how: 'created' as const, reconciled: false, status: 'created' }));
  const pending = take(counts.pending).map((p) => ({ ...p, reason: `no answer for ${p.slug}` }));
  const deferred = pending.slice(0, counts.deferred ?? 0);
  const rejected = take(counts.rejected).map((p) => ({ file: p.file, reason: `${p.file}: title is empty (fix: give it a title)`, field: 'title', line: 2 }));
  const plan = [...(dryRun ? [] : pushed), ...pending];
  return { plan, pushed: dryRun ? [] : pushed, pending, deferred, rejected, requests: plan.length + 1, schedule: [], dayRemaining: 42, notes: [], dryRun };
}

const counts = fc
  .record({ pushed: fc.nat(3), pending: fc.nat(3), rejected: fc.nat(2) })
  .chain((c) => fc.record({ pushed: fc.constant(c.pushed), pending: fc.constant(c.pending), rejected: fc.constant(c.rejected), deferred: fc.nat(c.pending) }));

describe('pushExitCode', () => {
  it('is 5 with an invalid file, else 1 with a file left pending that is not deferred, else 4 with a deferred one, else 0 (README "Exit codes")', () => {
    fc.assert(
      fc.property(counts, (c) => {
        const code = pushExitCode(result(c));
        if (c.rejected > 0) expect(code).toBe(EXIT.INVALID);
        else if (c.pending > c.deferred) expect(code).toBe(EXIT.ERROR);
        else if (c.deferred > 0) expect(code).toBe(EXIT.DEFERRED);
        else expect(code).toBe(EXIT.OK);
      }),
    );
  });
});

describe('formatPush', () => {
  it('names every file pushed with its identifier, every pending one with its reason, every rejected one', () => {
    fc.assert(
      fc.property(counts, (c) => {
        const r = result(c);
        const text = formatPush(r);
        const lines = text.split('\n');
        expect(lines[0]).toMatch(new RegExp(`^Pushed ${r.pushed.length} new entr(y|ies)`));
        for (const p of r.pushed) expect(lines).toContain(`  + ${p.file} -> ${p.identifier} (created)`);
        for (const p of r.pending) expect(lines).toContain(`  … ${p.file}: ${p.reason}`);
        for (const p of r.rejected) expect(lines.some((l) => l.startsWith(`  x ${p.file}: not sent`))).toBe(true);
        if (r.deferred.length) expect(lines[0]).toContain(`${r.deferred.length} deferred`);
        else expect(lines[0]).not.toContain('deferred');
      }),
    );
  });

  it('a dry run: the plan, numbered oldest first, without the deferred, and says nothing is sent', () => {
    fc.assert(
      fc.property(counts, (c) => {
        const r = result({ ...c, pushed: 0 }, true);
        const lines = formatPush(r).split('\n');
        expect(lines[0]).toContain('nothing sent');
        const numbered = lines.filter((l) => /^ {2}\d+\. /.test(l));
        const sending = r.plan.filter((p) => !r.deferred.includes(p));
        expect(numbered.map((l) => l.replace(/^ {2}\d+\. (\S+) .*$/, '$1'))).toEqual(sending.map((p) => p.file));
        numbered.forEach((l, i) => expect(l.startsWith(`  ${i + 1}. `)).toBe(true));
        expect(lines[0]).toContain(`${r.dayRemaining} requests left today`);
      }),
    );
  });
});

describe('reportRejected', () => {
  it('puts each problem of each rejected file on stderr once, the path relative to the working directory given', () => {
    const r = result({ rejected: 2 });
    const cwd = join(tmpdir(), 'project');
    const { reporter, out, err } = captureReporter();
    reportRejected(reporter, { contentDir: join(cwd, 'content'), cwd }, r.rejected);
    const lines = err().trimEnd().split('\n');
    expect(lines).toHaveLength(r.rejected.length);
    r.rejected.forEach((p, i) => {
      expect(lines[i]).toMatch(new RegExp(`^error: content/${p.file.replace(/[.]/g, '\\.')}:${p.line}: `));
      expect(lines[i]).toContain('title is empty');
      // The file is named once, at the start, not again inside the message.
      expect(lines[i]!.split(p.file)).toHaveLength(2);
    });
    expect(out()).toBe('');
  });

  it('lists every problem a file has, with its fix, and annotates each in GitHub Actions', () => {
    const problems = [
      { line: 2, field: 'title', severity: 'error' as const, message: 'title is empty', hint: 'give it a title' },
      { line: 4, field: 'date', severity: 'error' as const, message: 'date is not a date', hint: 'write YYYY-MM-DD' },
    ];
    const { reporter, out, err } = captureReporter({ env: { GITHUB_ACTIONS: 'true' } });
    reportRejected(reporter, { contentDir: join(tmpdir(), 'content'), cwd: tmpdir() }, [{ file: 'entries/a.md', reason: 'entries/a.md: two problems', problems }]);
    for (const p of problems) {
      expect(err()).toContain(`error: content/entries/a.md:${p.line}: ${p.message} (fix: ${p.hint})`);
      expect(out()).toContain(`::error file=content/entries/a.md,line=${p.line}::${p.message} (fix: ${p.hint})`);
    }
  });
});
