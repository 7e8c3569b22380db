// Reads a changelog corpus laid out as the Box developer changelog is (`<year>/<MM>-<DD>-<slug>.md`):
// the subset inside the repository (test/fixtures/corpus, what `npm test` reads) or the whole
// corpus beside it (test/corpus/corpus.ts, the corpus suite's).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFrontmatter } from '../../../src/entry/frontmatter.js';

/** 50 real entries kept in the repository, with their LICENSE (test/fixtures/corpus/README.md). */
export const FIXTURE_CORPUS_DIR = fileURLToPath(new URL('../../fixtures/corpus/box-developer-changelog/content', import.meta.url));

export interface CorpusEntry {
  /** YYYY-MM-DD, from the folder and file name. */
  date: string;
  /** From the file name. */
  slug: string;
  /** The first heading of the body. */
  title: string;
  /** Markdown body without that heading. */
  body: string;
  /** The corpus file's own frontmatter. */
  frontmatter: Record<string, unknown>;
  /** Path inside the corpus. */
  source: string;
}

/**
 * Every entry of the corpus in `contentDir`, oldest first. `index.md` is not an entry. Two
 * files of the Box corpus are irregular and still entries: one has no `.md` extension, one a
 * one-digit month.
 */
export function readCorpus(contentDir: string): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  for (const year of readdirSync(contentDir).filter((y) => /^\d{4}$/.test(y)).sort()) {
    for (const name of readdirSync(join(contentDir, year)).sort()) {
      const m = /^(\d{1,2})-(\d{2})-(.+?)(?:\.md)?$/.exec(name);
      if (!m) continue;
      const text = readFileSync(join(contentDir, year, name), 'utf8');
      // The corpus frontmatter is plain YAML, read as entry files are read.
      const parsed = readFrontmatter(`${year}/${name}`, text);
      const lines = parsed.body.split('\n');
      const h = lines.findIndex((l) => /^#{1,2} /.test(l));
      const title = h >= 0 ? lines[h]!.replace(/^#{1,2} /, '').trim() : m[3]!;
      const body = (h >= 0 ? [...lines.slice(0, h), ...lines.slice(h + 1)] : lines).join('\n').trim();
      out.push({ date: `${year}-${m[1]!.padStart(2, '0')}-${m[2]}`, slug: m[3]!, title, body, frontmatter: parsed.data, source: `${year}/${name}` });
    }
  }
  return out;
}
