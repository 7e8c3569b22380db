import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError, ValidationError } from '../../src/core/errors.js';
import { entryFileName, entryFromParsed, parsedEntryOf, parseEntryFile } from '../../src/entry/entry-file.js';
import { isRealDate } from '../../src/entry/frontmatter.js';
import { addFrontmatterFields, serializeEntryFile } from '../../src/entry/frontmatter-writer.js';

describe('parseEntryFile', () => {
  it('reads the known fields, turns a YAML date back into YYYY-MM-DD, keeps unknown fields', () => {
    const f = parseEntryFile('e.md', '---\ntitle: Hello\npublish_at: 2026-11-22\nis_published: true\ntags: API\nowner: docs-team\n---\n\nBody *text*.\n');
    expect(f.data).toEqual({ title: 'Hello', publish_at: '2026-11-22', is_published: true, tags: ['API'] });
    expect(f.extra).toEqual({ owner: 'docs-team' });
    expect(f.body.trim()).toBe('Body *text*.');
  });

  it('never runs ---js frontmatter', () => {
    (globalThis as Record<string, unknown>).__pwned = false;
    const text = '---js\n{ title: (globalThis.__pwned = true, "x") }\n---\nbody\n';
    expect(() => parseEntryFile('evil.md', text)).toThrow(ChangelogSyncError);
    expect(() => parseEntryFile('evil.md', text)).toThrow(/frontmatter language "js" is not allowed/);
    expect((globalThis as Record<string, unknown>).__pwned).toBe(false);
  });

  it('reports invalid YAML with file and line', () => {
    try {
      parseEntryFile('bad.md', '---\ntitle: ok\npublish_at: [unclosed\n---\nbody\n');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(ChangelogSyncError);
      expect((err as ChangelogSyncError).code).toBe('E_FILE');
      expect((err as ChangelogSyncError).file).toBe('bad.md');
      expect((err as ChangelogSyncError).message).toMatch(/^bad\.md:\d+: invalid YAML frontmatter/);
    }
  });

  it('names the field and the fix for schema errors', () => {
    try {
      parseEntryFile('x.md', '---\ntitle: T\npublish_at: 22/11/2026\n---\n');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      const v = err as ValidationError;
      expect(v.field).toBe('publish_at');
      expect(v.line).toBe(3);
      expect(v.message).toContain('x.md: publish_at: must be a date written YYYY-MM-DD (fix: write the date as YYYY-MM-DD');
    }
    expect(() => parseEntryFile('y.md', '---\nslug: a\n---\n')).toThrow(/y\.md: title: is required/);
    expect(() => parseEntryFile('z.md', '---\ntitle: T\nis_published: "yes"\n---\n')).toThrow(/is_published: must be true or false/);
  });

  it('refuses invalid UTF-8 and NUL bytes', () => {
    expect(() => parseEntryFile('u.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]))).toThrow(/not valid UTF-8/);
    expect(() => parseEntryFile('n.md', '---\ntitle: a\u0000b\n---\n')).toThrow(/n\.md:2: contains a NUL byte/);
  });
});

describe('parsedEntryOf and entryFromParsed (the entry memo)', () => {
  // A frontmatter line of the writer's own: YAML scalars of every kind JSON has and some it
  // has not (a date, a float's -0, .nan), and keys JSON reads another way (__proto__).
  const scalar = fc.constantFrom('docs-team', '"quoted: yes"', '2026-11-22', '2026-11-22T10:00:00Z', '-0.0', '.nan', '.inf', '12', '1e3', 'null', '~', 'true', '[a, 1, {b: c}]', '{x: [1, 2]}', "'it''s'", '"\\u0000"');
  const field = fc.tuple(fc.constantFrom('owner', '__proto__', 'constructor', 'toString', 'review', 'x-y', 'title', 'tags', 'slug', 'status'), scalar);
  const body = fc.constantFrom('', '\nBody *text*.\n', '\n---\nnot frontmatter\n---\n', 'no blank line\n', '\r\nCRLF body\r\n');

  it('gives back, through JSON, the entry file that parsing gives, for any frontmatter that parses', () => {
    const seen = { kept: 0, notKept: 0 };
    fc.assert(
      fc.property(fc.uniqueArray(field, { selector: ([k]) => k, maxLength: 6 }), body, fc.boolean(), (fields, rest, bom) => {
        const text = `${bom ? '\ufeff' : ''}---\ntitle: T\n${fields.filter(([k]) => k !== 'title').map(([k, v]) => `${k}: ${v}`).join('\n')}\n---\n${rest}`;
        let parsed: ReturnType<typeof parseEntryFile>;
        try {
          parsed = parseEntryFile('e.md', text);
        } catch {
          return; // a file that does not parse is never kept
        }
        const kept = parsedEntryOf(parsed);
        const values = [parsed.data, { ...parsed.extra }];
        if (!kept) {
          // Not kept only when JSON would not give it back (a date, -0, NaN, a key __proto__).
          seen.notKept++;
          expect(Object.keys(parsed.extra).includes('__proto__') || !isDeepStrictEqual(JSON.parse(JSON.stringify(values)), values)).toBe(true);
          return;
        }
        seen.kept++;
        const back = entryFromParsed('e.md', Buffer.from(text), JSON.parse(JSON.stringify(kept)) as typeof kept);
        expect(back).toEqual(parsed);
        expect(Object.getPrototypeOf(back.extra)).toBeNull();
        expect(Object.keys(back.extra)).toEqual(Object.keys(parsed.extra));
      }),
      { numRuns: 400 },
    );
    // Both sides drawn often enough to mean something.
    expect(seen.kept).toBeGreaterThan(50);
    expect(seen.notKept).toBeGreaterThan(50);
  });

  it('keeps no file whose fields JSON would change', () => {
    expect(parsedEntryOf(parseEntryFile('e.md', '---\ntitle: T\nowner: docs\n---\nb\n'))).toBeDefined();
    expect(parsedEntryOf(parseEntryFile('e.md', '---\ntitle: T\nreviewed: 2026-11-22T10:00:00Z\n---\nb\n'))).toBeUndefined();
    expect(parsedEntryOf(parseEntryFile('e.md', '---\ntitle: T\nscore: .nan\n---\nb\n'))).toBeUndefined();
    expect(parsedEntryOf(parseEntryFile('e.md', '---\ntitle: T\n__proto__: x\n---\nb\n'))).toBeUndefined();
  });
});

describe('serializeEntryFile', () => {
  it('round-trips titles with YAML-significant characters, quotes, newlines, emoji and RTL text', () => {
    for (const title of ['Fix: exports # 2', '"Smart" filters', "it's - [not] a list", 'line one\nline two', 'Dark mode 🌙', 'עדכון גרסה', 'yes', '2026-01-01', '@here', '- dash']) {
      const text = serializeEntryFile({ title, identifier: 'id' }, 'body');
      expect(parseEntryFile('t.md', text).data.title).toBe(title);
    }
  });

  it('writes every string so that it reads back exactly (random strings over YAML\'s hard characters)', () => {
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = [...'aZ09 :#-?[]{},&*!|>\'"%@`~.\\/\t\n\r=+_()', '\u0000', '\u0007', '\u007f', '\u0085', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffe', '🌙', 'ע', '\u202e', 'ß', 'é'];
    const words = ['yes', 'No', 'null', '~', 'true', 'FALSE', 'on', '0x1F', '1e3', '.inf', '2026-01-01', '12:30', '---', '...', '<<'];
    const samples: string[] = [...words];
    for (let i = 0; i < 3000; i++) samples.push(Array.from({ length: 1 + Math.floor(rnd() * 10) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''));
    for (const s of samples) {
      const text = serializeEntryFile({ title: s.trim() ? s : `x${s}`, status: s, slug: s, identifier: 'id' }, 'body');
      const f = parseEntryFile('t.md', text);
      expect(f.data.status, JSON.stringify(s)).toBe(s);
      expect(f.data.slug, JSON.stringify(s)).toBe(s);
      expect(f.data.title).toBe(s.trim() ? s : `x${s}`);
    }
    const id = '9f0c2a4e-5b1d-4c7e-8a3f-2d6e1b0c9a57';
    expect(serializeEntryFile({ title: 'T', identifier: id }, 'b')).toContain(`identifier: ${id}\n`);
  });

  it('writes known fields in a fixed order, then unknown ones', () => {
    const text = serializeEntryFile({ identifier: 'i', title: 'T', status: 'published' }, 'b', { zeta: 1, alpha: 2 });
    expect(text).toBe('---\ntitle: T\nstatus: published\nidentifier: i\nzeta: 1\nalpha: 2\n---\n\nb\n');
  });
});

describe('addFrontmatterFields', () => {
  it('adds lines before the closing --- and keeps every other byte', () => {
    const original = '---\r\ntitle:   "Spaced"   # a comment\r\ncustom: [1, 2]\r\n---\r\n\r\nBody\r\n';
    const out = addFrontmatterFields('f.md', original, { slug: 'spaced', identifier: 'abc' });
    expect(out).toBe('---\r\ntitle:   "Spaced"   # a comment\r\ncustom: [1, 2]\r\nslug: spaced\r\nidentifier: abc\r\n---\r\n\r\nBody\r\n');
  });
  it('refuses a file without frontmatter', () => {
    expect(() => addFrontmatterFields('f.md', 'no frontmatter', { identifier: 'x' })).toThrow(/no frontmatter block/);
  });
});

describe('names', () => {
  it('keeps hostile slugs inside entries/ with portable names', () => {
    expect(entryFileName('2026-01-02T00:00:00.000000Z', '../../etc/x')).toBe('2026-01-02-etc-x.md');
    expect(entryFileName('2026-01-02', 'a/b')).toBe('2026-01-02-a-b.md');
    expect(entryFileName('2026-01-02', 'CON')).toBe('2026-01-02-con.md');
    expect(entryFileName('2026-01-02', 'x'.repeat(300)).length).toBeLessThanOrEqual(100);
    expect(entryFileName(null, 'x', 'ab12-cd34-ef')).toBe('undated-x-ab12cd34.md');
  });
});

describe('isRealDate', () => {
  it('agrees with the calendar on every day from 1899 to 2101, and refuses days that do not exist', () => {
    // The calendar's answer, from Date: a day exists when it survives a round trip.
    const viaDate = (s: string) => {
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
    };
    let checked = 0;
    const disagreements: string[] = [];
    for (let year = 1899; year <= 2101; year++) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const s = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          if (isRealDate(s) !== viaDate(s)) disagreements.push(s);
          checked++;
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(checked).toBe(203 * 14 * 33);
    for (const s of ['2024-02-29', '2000-02-29']) expect(isRealDate(s), s).toBe(true);
    for (const s of ['2023-02-29', '1900-02-29', '2024-04-31', '2024-1-01', '24-01-01', '2024-01-01T00:00:00Z', '']) expect(isRealDate(s), s).toBe(false);
  });
});
