// Reads ../shared/corpus/box-developer-changelog (the real changelog of docs/development.md#real-input).
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import matter from 'gray-matter';
import { serializeEntryFile } from '../../src/mirror/frontmatter-writer.js';

export const CORPUS_DIR = fileURLToPath(new URL('../../../shared/corpus/box-developer-changelog/content', import.meta.url));

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
 * Every entry of the corpus, oldest first. `index.md` is not an entry. Two files are
 * irregular and still entries: one has no `.md` extension, one a one-digit month.
 */
export function loadCorpus(): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  for (const year of readdirSync(CORPUS_DIR).filter((y) => /^\d{4}$/.test(y)).sort()) {
    for (const name of readdirSync(join(CORPUS_DIR, year)).sort()) {
      const m = /^(\d{1,2})-(\d{2})-(.+?)(?:\.md)?$/.exec(name);
      if (!m) continue;
      const text = readFileSync(join(CORPUS_DIR, year, name), 'utf8');
      // The corpus frontmatter is plain YAML; engines are irrelevant here (trusted test input).
      const parsed = matter(text, {});
      const lines = parsed.content.split('\n');
      const h = lines.findIndex((l) => /^#{1,2} /.test(l));
      const title = h >= 0 ? lines[h]!.replace(/^#{1,2} /, '').trim() : m[3]!;
      const body = (h >= 0 ? [...lines.slice(0, h), ...lines.slice(h + 1)] : lines).join('\n').trim();
      out.push({ date: `${year}-${m[1]!.padStart(2, '0')}-${m[2]}`, slug: m[3]!, title, body, frontmatter: parsed.data, source: `${year}/${name}` });
    }
  }
  return out;
}

/** Slugs made unique by appending the date to repeats (the corpus reuses a few, e.g. "new-ai-models"). */
function uniqueSlugs(entries: CorpusEntry[]): string[] {
  const seen = new Map<string, number>();
  for (const e of entries) seen.set(e.slug, (seen.get(e.slug) ?? 0) + 1);
  return entries.map((e) => ((seen.get(e.slug) ?? 0) > 1 ? `${e.slug}-${e.date}` : e.slug));
}

/**
 * Writes the corpus as a writer's local entry files into `dir/content/entries/` (title, unique
 * slug, date, `is_published: true`, the corpus frontmatter kept).
 */
export async function writeCorpusEntries(dir: string, entries: CorpusEntry[]): Promise<void> {
  await mkdir(join(dir, 'content/entries'), { recursive: true });
  const slugs = uniqueSlugs(entries);
  await Promise.all(
    entries.map((e, i) =>
      writeFile(
        join(dir, 'content/entries', `${e.date}-${slugs[i]}.md`),
        serializeEntryFile({ title: e.title, slug: slugs[i], publish_at: e.date, is_published: true }, e.body, e.frontmatter),
      ),
    ),
  );
}
