// Reads ../shared/corpus/box-developer-changelog (the real changelog of docs/development.md#real-input):
// the corpus suite only. `npm test` reads the subset in test/fixtures/corpus (test/helpers/site/corpus-read.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serializeEntryFile } from '../../src/entry/frontmatter-writer.js';
import { readCorpus, type CorpusEntry } from '../helpers/site/corpus-read.js';

export type { CorpusEntry } from '../helpers/site/corpus-read.js';

export const CORPUS_DIR = fileURLToPath(new URL('../../../shared/corpus/box-developer-changelog/content', import.meta.url));

/** Every entry of the whole corpus (../shared), oldest first (see {@link readCorpus}). */
export function loadCorpus(): CorpusEntry[] {
  return readCorpus(CORPUS_DIR);
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
