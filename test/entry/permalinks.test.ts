// Permalinks never collide: a property test builds colliding sets (one
// slug, one date, identifiers that share their first 8 hex digits or all of them, files
// without identifier, slugs that look like another entry's suffixed one) and checks that
// every permalink is unique, and stable when a newer entry is added; then the real CLI
// builds a site with three unpushed "Weekly fixes" and two remote entries whose slugs
// collide after slugify and whose identifiers share their first 8 hex digits.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { permalinkSlugs, type PermalinkSubject } from '../../src/entry/permalinks.js';
import { runCli, useTempDir } from '../helpers/process/cli.js';
import { readSite, writeContent } from '../helpers/site/site-fixture.js';

const SLUGS = ['weekly-fixes', 'release', 'weekly-fixes-2026-03-01', 'weekly-fixes-2026-03-08', 'a'];
const DATES = ['2026-03-01', '2026-03-08', '2026-03-15'];
/** Time-ordered UUIDs made together: the same first 8 hex digits. */
const IDS = ['0190abcd-0000-7000-8000-000000000001', '0190abcd-0000-7000-8000-000000000002', '0190abcd-1111-7000-8000-000000000003'];

const subjectArb = fc.record({
  slug: fc.constantFrom(...SLUGS),
  date: fc.constantFrom(...DATES),
  identifier: fc.option(fc.constantFrom(...IDS), { nil: undefined }),
});
const setArb = fc.array(subjectArb, { maxLength: 14 }).map((list) => list.map((s, i): PermalinkSubject => ({ ...s, file: `entries/${s.date}-${s.slug}-${i}.md` })));

describe('permalinkSlugs', () => {
  it('gives every entry a distinct, URL-safe slug that starts with its own', () => {
    fc.assert(
      fc.property(setArb, (subjects) => {
        const slugs = permalinkSlugs(subjects);
        expect(slugs).toHaveLength(subjects.length);
        expect(new Set(slugs).size).toBe(subjects.length);
        slugs.forEach((s, i) => {
          expect(s).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
          expect(s.startsWith(subjects[i]!.slug)).toBe(true);
        });
      }),
      { numRuns: 500 },
    );
  });

  it('does not depend on the order the entries come in', () => {
    fc.assert(
      fc.property(setArb, fc.infiniteStream(fc.nat()), (subjects, stream) => {
        const shuffled = subjects.map((s) => ({ s, k: stream.next().value as number })).sort((a, b) => a.k - b.k).map((x) => x.s);
        const byFile = new Map(subjects.map((s, i) => [s.file, permalinkSlugs(subjects)[i]]));
        permalinkSlugs(shuffled).forEach((slug, i) => expect(slug).toBe(byFile.get(shuffled[i]!.file)));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every permalink when a newer entry is added, unless the newcomer asks for a slug another entry got as a suffixed one', () => {
    fc.assert(
      fc.property(setArb, subjectArb, (subjects, extra) => {
        const before = permalinkSlugs(subjects);
        const newer: PermalinkSubject = { ...extra, date: '2026-04-01', file: 'entries/newcomer.md' };
        fc.pre(before.every((s, i) => s !== newer.slug || subjects[i]!.slug === newer.slug));
        const after = permalinkSlugs([...subjects, newer]);
        expect(after.slice(0, subjects.length)).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('the first entry under a slug keeps it; the others get their date, then a hash of their identifier', () => {
    const weekly = (date: string, identifier?: string): PermalinkSubject => ({ slug: 'weekly-fixes', date, identifier, file: `entries/${date}-weekly-fixes${identifier ? `-${identifier.slice(-1)}` : ''}.md` });
    expect(permalinkSlugs([weekly('2026-03-15'), weekly('2026-03-08'), weekly('2026-03-01')])).toEqual(['weekly-fixes-2026-03-15', 'weekly-fixes-2026-03-08', 'weekly-fixes']);
    const [a, b] = permalinkSlugs([weekly('2026-03-01', IDS[0]), weekly('2026-03-01', IDS[1])]);
    expect(a).toBe('weekly-fixes');
    expect(b).toBe('weekly-fixes-2026-03-01');
    const three = permalinkSlugs([weekly('2026-03-01', IDS[0]), weekly('2026-03-01', IDS[1]), weekly('2026-03-01', IDS[2])]);
    expect(three[2]).toMatch(/^weekly-fixes-2026-03-01-[0-9a-f]{8}$/);
    expect(three[2]).not.toContain('0190abcd');
  });
});

describe('changelog-sync build with colliding slugs', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  beforeAll(async () => {
    const content = await writeContent(dir, {
      entries: [
        // Remote entries whose slugs collide after slugify, identifiers with one first 8 hex digits, one date.
        { title: 'Weekly fixes', slug: 'Weekly_Fixes', date: '2026-02-22', identifier: IDS[0] },
        { title: 'Weekly fixes', slug: 'weekly-fixes', date: '2026-02-22', identifier: IDS[1] },
      ],
    });
    // Three unpushed files titled "Weekly fixes" on three dates: no slug, no identifier.
    for (const date of DATES) {
      await writeFile(join(content, 'entries', `${date}-weekly-fixes.md`), `---\ntitle: Weekly fixes\npublish_at: ${date}\nis_published: true\n---\n\nFixes of the week of ${date}.\n`);
    }
  });

  it('builds, with one page per entry', async () => {
    const r = await runCli(['--json', 'build', '--no-cache'], { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://acme.example.com/', GITHUB_ACTIONS: undefined }, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    const pages = (await readdir(join(dir, '_site/entries'))).filter((n) => n.startsWith('weekly-fixes')).sort();
    expect(pages).toHaveLength(5);
    expect(pages).toEqual(expect.arrayContaining(['weekly-fixes', 'weekly-fixes-2026-02-22', 'weekly-fixes-2026-03-01', 'weekly-fixes-2026-03-08', 'weekly-fixes-2026-03-15']));
    for (const date of DATES) expect(await readSite(join(dir, '_site'), `entries/weekly-fixes-${date}/index.html`)).toContain(`Fixes of the week of ${date}.`);
  });
});
