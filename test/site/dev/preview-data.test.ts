// The preview's site data over a save: a save that changes one entry's body derives that
// entry's excerpt and feed content digest again, and no other entry's; the changed entry gets
// the fresh ones. Real entry files in a temp dir; the derivations counted as they are called.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PreviewData, previewBodies } from '../../../src/site/dev/preview-data.js';
import { DerivedFields } from '../../../src/site/render/derived-fields.js';
import { excerptOf } from '../../../src/site/render/html-text.js';
import { feedContentDigest } from '../../../src/site/data/feed-item.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { writeContent } from '../../helpers/site/site-fixture.js';

describe('PreviewData', () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it("derives again only a saved entry's excerpt and feed digest, and gives it the fresh ones", async () => {
    const entries = ['Alpha', 'Beta', 'Gamma'].map((title, i) => ({ title, date: `2026-11-0${i + 1}`, identifier: `id-${title}` }));
    const content = await writeContent(dir, { entries });
    const calls: { excerpt: string[]; digest: Array<[string, string]> } = { excerpt: [], digest: [] };
    const derived = new DerivedFields({
      excerpt: (html) => (calls.excerpt.push(html), excerptOf(html)),
      digest: (title, body) => (calls.digest.push([title, body]), feedContentDigest(title, body)),
    });
    const preview = new PreviewData(content, { derived, bodyCache: previewBodies(), siteOptions: () => Promise.resolve({ today: '2026-11-30', now: new Date('2026-11-30T00:00:00Z') }) });
    const first = await preview.load();
    preview.written();
    expect(first.data.entries.map((e) => e.excerpt)).toEqual(['The first paragraph of Gamma.', 'The first paragraph of Beta.', 'The first paragraph of Alpha.']);

    const file = join(content, 'entries', '2026-11-02-beta.md');
    const body = 'A new first paragraph of Beta.\n\nMore about it.\n';
    await writeFile(file, (await readFile(file, 'utf8')).replace(/\n\n[^]*$/, `\n\n${body}`));
    expect([calls.excerpt.length, calls.digest.length]).toEqual([3, 3]);
    calls.excerpt = [];
    calls.digest = [];
    preview.changed([file]);
    const second = await preview.load();

    expect(calls.excerpt).toEqual(['<p>A new first paragraph of Beta.</p>\n<p>More about it.</p>\n']);
    expect(calls.digest).toEqual([['Beta', `\n${body}`]]);
    const beta = second.data.entries.find((e) => e.title === 'Beta')!;
    expect(beta.excerpt).toBe('A new first paragraph of Beta.');
    expect(second.data.feedDates.entries['id-Beta']!.hash).toBe(feedContentDigest('Beta', `\n${body}`));
    expect(second.data.feedDates.entries['id-Beta']!.hash).not.toBe(first.data.feedDates.entries['id-Beta']!.hash);
    expect(second.data.entries.map((e) => e.excerpt)).toEqual(['The first paragraph of Gamma.', 'A new first paragraph of Beta.', 'The first paragraph of Alpha.']);
  });
});
