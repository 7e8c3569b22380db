// Sync's and pull's exit codes and sync's job summary, called directly (cli/commands/sync.ts, cli/reports/pull-report.ts).
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { pullExitCode } from '../../../src/cli/reports/pull-report.js';
import { pushExitCode } from '../../../src/cli/reports/push-report.js';
import { identifiersWritten, syncExitCode, syncSummaryMarkdown } from '../../../src/cli/commands/sync.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import type { PushResult } from '../../../src/sync/push/push-run.js';
import { EXIT } from '../../../src/cli/output/exit-codes.js';

const pullItem = (n: number) => ({ identifier: `r${n}`, file: `entries/2026-02-${String(n).padStart(2, '0')}-r${n}.md`, title: `Remote ${n}` });
const planItem = (n: number) => ({ file: `entries/2026-03-${String(n).padStart(2, '0')}-l${n}.md`, title: `Local ${n}`, slug: `l${n}`, derived_slug: false, is_published: true });

function pulled(c: { failed?: number; conflicts?: number; slugConflicts?: number; bound?: number } = {}, name = 'Acme'): PullResult {
  const few = (k: number | undefined, offset: number) => Array.from({ length: k ?? 0 }, (_, i) => pullItem(offset + i + 1));
  return {
    workspace: { identifier: 'ws', name },
    remote: 10,
    created: few(2, 0),
    updated: few(1, 2),
    renamed: [],
    restored: [],
    adopted: [],
    unchanged: 7,
    conflicts: few(c.conflicts, 10).map((i) => ({ ...i, conflictFile: `conflicts/${i.identifier}.md` })),
    localEdits: [],
    remoteGone: [],
    failed: few(c.failed, 20).map((i) => ({ ...i, reason: 'too large' })),
    problems: [],
    repaired: [],
    bound: few(c.bound, 30).map((i) => ({ ...i, how: 'reconciled' as const })),
    slugConflicts: few(c.slugConflicts, 40).map((i) => ({ file: i.file, slug: 's', title: i.title, remote: { identifier: i.identifier, title: 'Other' }, reason: 'slug taken' })),
    notes: [],
    writes: [],
    media: { fetched: 0, written: [], failed: [], deferred: [], sanitized: [], rewritten: [] },
    dryRun: false,
  };
}

function pushed(c: { pushed?: number; pending?: number; deferred?: number; rejected?: number } = {}): PushResult {
  let n = 0;
  const take = (k = 0) => Array.from({ length: k }, () => planItem(++n));
  const done = take(c.pushed).map((p, i) => ({ ...p, identifier: `new-${i}`, how: 'created' as const, reconciled: false, status: 'created' }));
  const pending = take(c.pending).map((p) => ({ ...p, reason: 'no answer' }));
  const rejected = take(c.rejected).map((p) => ({ file: p.file, reason: `${p.file}: bad` }));
  return { plan: [...done, ...pending], pushed: done, pending, deferred: pending.slice(0, c.deferred ?? 0), rejected, requests: 0, schedule: [], dayRemaining: 3, notes: [], dryRun: false };
}

describe('pullExitCode', () => {
  it('is 1 when an entry could not be converted, else 3 with a conflict or a slug conflict, else 0', () => {
    fc.assert(
      fc.property(fc.nat(2), fc.nat(2), fc.nat(2), (failed, conflicts, slugConflicts) => {
        const code = pullExitCode(pulled({ failed, conflicts, slugConflicts }));
        expect(code).toBe(failed ? EXIT.ERROR : conflicts || slugConflicts ? EXIT.CONFLICT : EXIT.OK);
      }),
    );
  });
});

describe('syncExitCode', () => {
  const pullCounts = fc.record({ failed: fc.nat(1), conflicts: fc.nat(1), slugConflicts: fc.nat(1) });
  const pushCounts = fc.record({ pending: fc.nat(2), rejected: fc.nat(1) }).chain((c) => fc.record({ pending: fc.constant(c.pending), rejected: fc.constant(c.rejected), deferred: fc.nat(c.pending) }));

  it("is 0 only when both are, and is always one of pull's and push's codes", () => {
    fc.assert(
      fc.property(pullCounts, pushCounts, (a, b) => {
        const [p, q] = [pullExitCode(pulled(a)), pushExitCode(pushed(b))];
        const code = syncExitCode(pulled(a), pushed(b));
        expect([p, q]).toContain(code);
        expect(code === EXIT.OK).toBe(p === EXIT.OK && q === EXIT.OK);
      }),
    );
  });

  it('ranks invalid files (5) over an entry not converted (1), an error over conflicts (3), conflicts over deferred (4)', () => {
    expect(syncExitCode(pulled({ failed: 1 }), pushed({ rejected: 1 }))).toBe(EXIT.INVALID);
    expect(syncExitCode(pulled({ conflicts: 1 }), pushed({ pending: 1 }))).toBe(EXIT.ERROR);
    expect(syncExitCode(pulled({ failed: 1 }), pushed({ pending: 1, deferred: 1 }))).toBe(EXIT.ERROR);
    expect(syncExitCode(pulled({ slugConflicts: 1 }), pushed({ pending: 1, deferred: 1 }))).toBe(EXIT.CONFLICT);
    expect(syncExitCode(pulled({ conflicts: 1 }), pushed({ rejected: 1 }))).toBe(EXIT.INVALID);
  });

  it("takes the build's code when it built: an unreadable entry (5) outranks pull's and push's", () => {
    const unreadable = [{ file: 'entries/x.md', message: 'invalid YAML' }];
    fc.assert(
      fc.property(pullCounts, pushCounts, (a, b) => {
        expect(syncExitCode(pulled(a), pushed(b), { unreadable })).toBe(EXIT.INVALID);
        expect(syncExitCode(pulled(a), pushed(b), { unreadable: [] })).toBe(syncExitCode(pulled(a), pushed(b)));
      }),
    );
  });
});

describe('identifiersWritten', () => {
  it("lists pull's bound files and push's pushed ones, each once, with how", () => {
    const p = pulled({ bound: 2 });
    const q = pushed({ pushed: 3 });
    const written = identifiersWritten(p, q);
    expect(written.map((w) => w.file)).toEqual([...p.bound.map((b) => b.file), ...q.pushed.map((x) => x.file)]);
    expect(written.map((w) => w.identifier)).toEqual([...p.bound.map((b) => b.identifier), ...q.pushed.map((x) => x.identifier)]);
    expect(written.every((w) => w.how === 'reconciled' || w.how === 'created')).toBe(true);
  });
});

describe('syncSummaryMarkdown', () => {
  const md = new MarkdownIt({ html: true });

  it("has a row per count, with the run's numbers", () => {
    const p = pulled({ conflicts: 2 });
    const q = pushed({ pushed: 1, pending: 2, deferred: 2, rejected: 1 });
    const rows = new Map([...syncSummaryMarkdown(p, q, undefined, 17, false).matchAll(/^\| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(rows.get('pulled (remote entries)')).toBe(String(p.remote));
    expect(rows.get('pushed (created on the service)')).toBe(String(q.pushed.length));
    expect(rows.get('conflicts')).toBe(String(p.conflicts.length));
    expect(rows.get('deferred to the next run')).toBe(String(q.deferred.length));
    expect(rows.get('rejected files')).toBe(String(q.rejected.length));
    expect(rows.get('requests left today')).toBe('17');
    expect(rows.has('pages built')).toBe(false);
    expect(rows.has('site changed since the last deployed build')).toBe(false);
  });

  it('keeps a hostile workspace name text: no link, image or HTML in what GitHub renders', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (name) => {
        const html = md.render(syncSummaryMarkdown(pulled({ conflicts: 1 }, `${name}](https://evil.example/)<img src=x>`), pushed({ pushed: 1 }), undefined, 0, false));
        expect(html).not.toMatch(/<(a|img|script)\b/);
      }),
    );
  });
});
