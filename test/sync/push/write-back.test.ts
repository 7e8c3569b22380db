// The write-back keeps every byte but the lines it adds (issue 25, item 9): CRLF, LF and
// mixed line endings, a byte order mark, trailing spaces; on a real file through writeBack.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addFrontmatterFields } from '../../../src/entry/frontmatter-writer.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import type { SyncState } from '../../../src/sync/store/state.js';
import { writeBack } from '../../../src/sync/push/write-back.js';
import { useTempDir } from '../../helpers/cli.js';

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
