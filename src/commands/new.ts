/**
 * `changelog-sync new "Title"`: a correctly named entry file from a template.
 * @module
 */
import { join, relative } from 'node:path';
import { ChangelogSyncError } from '../errors.js';
import type { Config } from '../config.js';
import { entryFileName, isSafeSlug, slugify } from '../mirror/entry-file.js';
import { serializeEntryFile } from '../mirror/frontmatter-writer.js';
import { writeFileAtomicSync } from '../mirror/atomic-file.js';
import { ENTRIES_DIR, listEntriesDir } from '../mirror/local-index.js';
import { nameKey } from '../mirror/portable-name.js';
import { NEW_ENTRY_BODY } from '../mirror/entry-template.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';

/** Options of {@link newCommand}. */
export interface NewCommandOptions {
  /** `YYYY-MM-DD`; default today (UTC). */
  date?: string;
  slug?: string;
  /** Create as a draft (`is_published: false`). Default: published on push. */
  draft?: boolean;
  tags?: string[];
  notify?: boolean;
  dryRun?: boolean;
}

/**
 * Creates `content/entries/<date>-<slug>.md`. Refuses to overwrite.
 * @throws {ChangelogSyncError} `E_USAGE` for an empty title, a malformed date or slug, or
 *   when the file exists.
 */
export async function newCommand(config: Config, reporter: Reporter, title: string, options: NewCommandOptions = {}): Promise<ExitCode> {
  if (!title.trim()) throw new ChangelogSyncError('E_USAGE', 'the title is empty', { hint: 'changelog-sync new "Faster exports"' });
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
    throw new ChangelogSyncError('E_USAGE', `--date must be YYYY-MM-DD, got ${JSON.stringify(date)}`, { field: 'publish_at' });
  }
  const slug = options.slug ?? slugify(title);
  if (!isSafeSlug(slug)) {
    throw new ChangelogSyncError('E_USAGE', `--slug ${JSON.stringify(slug)} is not URL-safe`, { field: 'slug', hint: 'use letters, digits, hyphens and underscores' });
  }
  const rel = `${ENTRIES_DIR}/${entryFileName(date, slug)}`;
  const abs = join(config.contentDir, rel);
  const shown = relative(process.cwd(), abs);
  // Taken under any spelling: on macOS and Windows `Release-notes.md` is `release-notes.md` (portable-name.ts).
  const name = rel.slice(ENTRIES_DIR.length + 1);
  const same = (await listEntriesDir(config.contentDir)).find((n) => nameKey(n) === nameKey(name));
  if (same !== undefined) {
    const existing = relative(process.cwd(), join(config.contentDir, ENTRIES_DIR, same));
    throw new ChangelogSyncError('E_USAGE', same === name ? `${shown} already exists` : `${existing} already exists, and is the same file as ${shown} on macOS and Windows`, { file: shown, hint: 'pick another title, --slug or --date' });
  }
  const text = serializeEntryFile(
    {
      title: title.trim(),
      slug: options.slug,
      publish_at: date,
      is_published: !options.draft,
      notify_subscribers: options.notify ?? false,
      tags: options.tags && options.tags.length > 0 ? options.tags : undefined,
    },
    NEW_ENTRY_BODY,
  );
  if (!options.dryRun) {
    // Never over a file made meanwhile, under any spelling.
    writeFileAtomicSync(abs, text, { exclusive: true });
  }
  reporter.result(`${options.dryRun ? 'Would create' : 'Created'} ${shown}\nEdit it, then run \`changelog-sync check\` and open a pull request.`, {
    command: 'new',
    file: shown,
    dryRun: Boolean(options.dryRun),
    content: text,
  });
  return EXIT.OK;
}
