// The read of one frontmatter field from a file that may not parse (frontmatterField) against
// the full read: for every file the writer writes, and the forms writers type by hand, it
// gives what readFrontmatter gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frontmatterField, readFrontmatter } from '../../src/entry/frontmatter.js';
import { serializeEntryFile } from '../../src/entry/frontmatter-writer.js';

/** What the full read gives for a field (strings only, as frontmatterField gives them). */
function parsed(text: string, field: string): unknown {
  return readFrontmatter('t.md', text).data[field];
}

const hard = fc.constantFrom(...'aZ09 :#-?[]{},&*!|>\'"%@`~.\\/\t\n=+_()', '\u0085', '\u00a0', '\u2028', '\ufeff', '🌙', 'ע', 'é');
const nasty = fc.oneof(fc.string(), fc.array(hard, { minLength: 1, maxLength: 12 }).map((a) => a.join('')), fc.constantFrom('yes', 'No', 'null', '~', '1e3', '2026-01-01', '12:30', 'draft', 'published'));

describe('frontmatterField agrees with readFrontmatter', () => {
  it('on every title, status and identifier the writer writes (random strings)', () => {
    fc.assert(
      fc.property(nasty, nasty, nasty, (title, status, identifier) => {
        const t = title.trim() ? title : `x${title}`;
        const text = serializeEntryFile({ title: t, status, identifier: identifier || 'id' }, 'body', { owner: 'docs' });
        expect(frontmatterField(text, 'title')).toBe(parsed(text, 'title'));
        expect(frontmatterField(text, 'status')).toBe(parsed(text, 'status'));
        expect(frontmatterField(text, 'identifier')).toBe(parsed(text, 'identifier'));
        expect(frontmatterField(text, 'slug')).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('on the forms writers type: quotes, comments, CRLF, a value on the next line', () => {
    const files = [
      '---\ntitle: Plain title\nstatus: draft\n---\nbody\n',
      "---\r\ntitle: 'It''s here'\r\nstatus: 'published'\r\n---\r\nbody\r\n",
      '---\ntitle: "Fix: exports"   \nstatus: draft # set by push\n---\nbody\n',
      '---\ntitle: "Say \\"hi\\""\nstatus: "scheduled"\n---\n',
      '---\ntitle: >-\n  Folded\n  title\nstatus:   published\n---\n',
    ];
    for (const text of files) {
      expect(frontmatterField(text, 'title'), text).toBe(parsed(text, 'title'));
      expect(frontmatterField(text, 'status'), text).toBe(parsed(text, 'status'));
    }
  });

  it('reads the line of a file that does not parse, and nothing without a line', () => {
    const broken = '---\ntitle: "Fix: x"\nstatus: draft\nbad: [unclosed\n---\nbody\n';
    expect(() => readFrontmatter('t.md', broken)).toThrow();
    expect(frontmatterField(broken, 'title')).toBe('Fix: x');
    expect(frontmatterField(broken, 'status')).toBe('draft');
    expect(frontmatterField('---\ntitle: T\n---\n', 'status')).toBeUndefined();
    expect(frontmatterField('no frontmatter\nstatus: draft\n', 'status')).toBeUndefined();
  });
});

describe('frontmatterField on identifiers and slugs', () => {
  it('gives the identifier and slug the full read gives, for every file the writer writes', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$/);
    fc.assert(
      fc.property(id, id, nasty, (identifier, slug, title) => {
        const text = serializeEntryFile({ title: title.trim() ? title : `x${title}`, slug, identifier }, 'body');
        expect(frontmatterField(text, 'identifier')).toBe(parsed(text, 'identifier'));
        expect(frontmatterField(text, 'slug')).toBe(parsed(text, 'slug'));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a file that does not parse, up to its closing ---', () => {
    const raw = Buffer.from('---\nidentifier: "abc-1"\nslug: my-entry\ntitle: [broken\n---\nidentifier: body-line\n');
    expect(frontmatterField(raw.toString('utf8'), 'identifier')).toBe('abc-1');
    expect(frontmatterField(raw.toString('utf8'), 'slug')).toBe('my-entry');
    expect(frontmatterField('---\ntitle: x\n---\nslug: in-body\n', 'slug')).toBeUndefined();
  });
});

describe('frontmatterField presence', () => {
  it('sees a field of the frontmatter, not of the body', () => {
    expect(frontmatterField('---\ntitle: T\nslug: s\n---\nbody\n', 'slug') !== undefined).toBe(true);
    expect(frontmatterField('---\ntitle: T\n---\nslug: s\n', 'slug') !== undefined).toBe(false);
  });
});

describe('readFrontmatter', () => {
  it('gives publish_at as written when YAML rolls an impossible date over', () => {
    expect(readFrontmatter('t.md', '---\ntitle: T\npublish_at: 2026-13-01\n---\n').data.publish_at).toBe('2026-13-01');
    expect(readFrontmatter('t.md', '---\ntitle: T\npublish_at: 2026-12-01\n---\n').data.publish_at).toEqual(new Date('2026-12-01T00:00:00Z'));
  });
});
