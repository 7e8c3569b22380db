// The write-back keeps every byte but the lines it adds: CRLF, LF and
// mixed line endings, a byte order mark, trailing spaces; on a real file through writeBack.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addFrontmatterFields } from '../../../src/entry/frontmatter-writer.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { readFrontmatter } from '../../../src/entry/frontmatter.js';
import type { SyncState } from '../../../src/sync/store/state.js';
import { writeBack } from '../../../src/sync/push/write-back.js';
import { useTempDir } from '../../helpers/process/cli.js';

const ID = '0190abcd-0000-7000-8000-000000000001';

/** Every file: the text before the closing `---`, the closing line and the rest; the lines the write-back adds go between. */
const cases: Array<{ name: string; head: string; tail: string; eol: string }> = [
  { name: 'LF', head: '---\ntitle: Launch  \npublish_at: 2026-06-14\n', tail: '---\n\nBody  \nmore\n', eol: '\n' },
  { name: 'CRLF', head: '---\r\ntitle: Launch\r\npublish_at: 2026-06-14 \r\n', tail: '---\r\n\r\nBody\r\n', eol: '\r\n' },
  // Mixed: each line keeps its own ending; an added line ends as the line before it.
  { name: 'mixed, last frontmatter line LF', head: '---\r\ntitle: Launch\r\npublish_at: 2026-06-14\n', tail: '---\r\n\nBody\r\nline two\nline three\r\n', eol: '\n' },
  { name: 'mixed, last frontmatter line CRLF', head: '---\ntitle: Launch\npublish_at: 2026-06-14\r\n', tail: '--- \n\r\nBody\n', eol: '\r\n' },
  { name: 'BOM and CRLF', head: '\ufeff---\r\ntitle: Launch\r\n', tail: '---\r\n\r\nBody   \r\n', eol: '\r\n' },
  { name: 'BOM, no final newline', head: '\ufeff---\ntitle: Launch\n', tail: '---\nBody', eol: '\n' },
];

describe('addFrontmatterFields keeps every byte but the lines it adds', () => {
  for (const c of cases) {
    it(c.name, () => {
      const out = addFrontmatterFields('f.md', c.head + c.tail, { slug: 'launch', identifier: ID });
      expect(out).toBe(`${c.head}slug: launch${c.eol}identifier: ${ID}${c.eol}${c.tail}`);
    });
  }

  it('a field already there is replaced on its own line, its ending kept', () => {
    const text = '---\r\ntitle: Launch\nstatus: draft\r\nslug: x\n---\r\nBody\n';
    expect(addFrontmatterFields('f.md', text, { status: 'published' })).toBe('---\r\ntitle: Launch\nstatus: published\r\nslug: x\n---\r\nBody\n');
  });
});

/** Frontmatter lines as writers write them: any value form, comments, blank lines, trailing spaces, either line ending. */
const eol = fc.constantFrom('\n', '\r\n');
const printable = fc.string({ unit: fc.constantFrom(...'aZ09 :#-?[]{},&*!|>\'"%@`~.\\/=+_()', 'é', '🌙', 'ע'), maxLength: 12 });
const scalarText = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ._-]{0,10}[A-Za-z0-9]$/),
  printable.map((v) => JSON.stringify(v)),
  printable.map((v) => `'${v.replace(/'/g, "''")}'`),
  fc.integer().map(String),
  fc.constantFrom('true', 'false', 'null', '', '2026-06-14', '[a, b]', '{team: api}'),
);
const comment = fc.option(printable.map((c) => ` # ${c}`), { nil: '' });
const spaces = fc.constantFrom('', ' ', '   ');
const blockValue = fc.tuple(fc.constantFrom('|', '>-', ''), fc.array(fc.stringMatching(/^[a-z][a-z ]{0,8}$/), { minLength: 1, maxLength: 3 }));
const line = (key: string, withBlocks: boolean) =>
  fc.tuple(withBlocks ? fc.oneof(scalarText.map((v) => ({ v })), blockValue.map((b) => ({ b }))) : scalarText.map((v) => ({ v })), comment, spaces, eol, eol).map(([value, c, sp, e, e2]) =>
    'v' in value ? `${key}:${value.v === '' ? '' : ` ${value.v}`}${c}${sp}${e}` : value.b[0] === '' ? `${key}:${e}${value.b[1].map((item) => `  - ${item}${e2}`).join('')}` : `${key}: ${value.b[0]}${e}${value.b[1].map((t) => `  ${t}${e2}`).join('')}`,
  );
const frontmatterLines = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom('title', 'publish_at', 'tags', 'owner', 'notes', 'area', 'x_y'), { maxLength: 6 }),
    fc.option(line('identifier', false), { nil: undefined }),
    fc.option(line('status', false), { nil: undefined }),
    fc.array(fc.tuple(fc.constantFrom('# a comment', '', '   '), eol).map(([t, e]) => t + e), { maxLength: 2 }),
  )
  .chain(([keys, identifier, status, extras]) =>
    fc.tuple(...keys.map((k) => line(k, true))).chain((lines) => fc.shuffledSubarray([...lines, ...extras, ...(identifier ? [identifier] : []), ...(status ? [status] : [])], { minLength: lines.length + extras.length + (identifier ? 1 : 0) + (status ? 1 : 0) })),
  );

describe('the write-back edits the YAML document and keeps every other byte (property)', () => {
  it('for arbitrary frontmatter and body, only the identifier and status lines change', () => {
    const fieldLine = /^(?:identifier|status):/;
    const others = (text: string) => text.split(/(?<=\n)/).filter((l) => !fieldLine.test(l));
    fc.assert(
      fc.property(fc.constantFrom('', '\ufeff'), eol, frontmatterLines, eol, fc.string(), (bom, open, lines, close, body) => {
        const text = `${bom}---${open}${lines.join('')}---${close}${body}`;
        let before;
        try {
          before = readFrontmatter('f.md', text.replace(/^\ufeff/, ''));
        } catch {
          return; // a duplicate key in the generated lines: not a file push writes back into
        }
        const out = addFrontmatterFields('f.md', text, { status: 'published', identifier: ID });
        expect(others(out)).toEqual(others(text));
        const after = readFrontmatter('f.md', out.replace(/^\ufeff/, ''));
        expect(after.body).toBe(before.body);
        expect(after.data).toEqual({ ...before.data, status: 'published', identifier: ID });
        expect(out.startsWith(bom + '---')).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('writeBack on a real file', () => {
  let dir: string;
  useTempDir((made) => (dir = made));

  for (const c of cases) {
    it(c.name, async () => {
      await mkdir(join(dir, 'entries'), { recursive: true });
      const rel = `entries/${c.name.replace(/[^a-z]+/gi, '-')}.md`;
      const original = Buffer.from(c.head + c.tail, 'utf8');
      await writeFile(join(dir, rel), original);
      const state: SyncState = { version: 1, entries: {} };
      await writeBack(dir, rel, ID, 'published', 'launch', state);
      const after = await readFile(join(dir, rel));
      expect(after.equals(Buffer.from(`${c.head}slug: launch${c.eol}status: published${c.eol}identifier: ${ID}${c.eol}${c.tail}`, 'utf8'))).toBe(true);
      expect(parseEntryFile(rel, after).data.identifier).toBe(ID);
      expect(state.entries[ID]?.file).toBe(rel);
    });
  }
});
