/**
 * `changelog-sync new "Title"`: a correctly named entry file from a template.
 */
import { join, relative } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import { entryFileName } from '../../entry/entry-file.js';
import { isSafeSlug, slugify } from '../../entry/slug.js';
import { isRealDate } from '../../entry/frontmatter.js';
import { serializeEntryFile } from '../../entry/frontmatter-writer.js';
import { writeFileAtomicSync } from '../../core/atomic-file.js';
import { listEntriesDir } from '../../entry/entry-files.js';
import { ENTRIES_DIR } from '../../core/content-layout.js';
import { nameKey } from '../../entry/portable-name.js';
import { EMPTY_TAGS_LINE, NEW_ENTRY_BODY } from '../../entry/entry-template.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { commandLine } from '../../core/project-command.js';

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
 * @throws {ChangelogSyncError} `E_USAGE` for an empty title, a malformed date, a date that
 *   does not exist (`2026-02-30`), a malformed slug, or when the file exists; nothing is written.
 */
export async function newCommand(config: Config, reporter: Reporter, title: string, options: NewCommandOptions = {}): Promise<ExitCode> {
  if (!title.trim()) throw new ChangelogSyncError('E_USAGE', 'the title is empty', { hint: `${commandLine(config.root, 'new "Faster exports"')}` });
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    throw new ChangelogSyncError('E_USAGE', `--date must be YYYY-MM-DD, got ${JSON.stringify(date)}`, { field: 'publish_at', hint: 'e.g. --date 2026-03-01' });
  }
  // The pattern passes `2026-02-30`, and so does Date.parse (it rolls over to `2026-03-02`): the
  // file would be named undated-*.md and `check` would refuse its publish_at.
  if (!isRealDate(date)) {
    const month = String(Math.min(Math.max(Number(date.slice(5, 7)), 1), 12)).padStart(2, '0');
    throw new ChangelogSyncError('E_USAGE', `--date ${date} is not a date that exists`, { field: 'publish_at', hint: `give a real day, e.g. --date ${date.slice(0, 5)}${month}-01` });
  }
  const slug = options.slug ?? slugify(title);
  if (!isSafeSlug(slug)) {
    throw new ChangelogSyncError('E_USAGE', `--slug ${JSON.stringify(slug)} is not URL-safe`, { field: 'slug', hint: 'use letters, digits, hyphens and underscores' });
  }
  const name = entryFileName(date, slug);
  const abs = join(config.contentDir, ENTRIES_DIR, name);
  const shown = relative(config.cwd, abs);
  // Taken under any spelling: on macOS and Windows `Release-notes.md` is `release-notes.md` (portable-name.ts).
  const same = (await listEntriesDir(config.contentDir)).find((n) => nameKey(n) === nameKey(name));
  if (same !== undefined) {
    const existing = relative(config.cwd, join(config.contentDir, ENTRIES_DIR, same));
    throw new ChangelogSyncError('E_USAGE', same === name ? `${shown} already exists` : `${existing} already exists, and is the same file as ${shown} on macOS and Windows`, { file: shown, hint: 'pick another title, --slug or --date' });
  }
  const tags = options.tags?.filter((t) => t.trim() !== '') ?? [];
  // The tags line is always there, so that writers find the field: an empty list with a comment.
  const text = serializeEntryFile(
    {
      title: title.trim(),
      slug: options.slug,
      publish_at: date,
      is_published: !options.draft,
      notify_subscribers: options.notify ?? false,
      tags,
    },
    NEW_ENTRY_BODY,
  ).replace(/^tags: \[\]$/m, EMPTY_TAGS_LINE);
  if (!options.dryRun) {
    // Never over a file made meanwhile, under any spelling.
    writeFileAtomicSync(abs, text, { exclusive: true });
  }
  reporter.result(`${options.dryRun ? 'Would create' : 'Created'} ${shown}\nEdit it, then run \`${commandLine(config.root, 'check')}\` and open a pull request.`, {
    command: 'new',
    file: shown,
    dryRun: Boolean(options.dryRun),
    content: text,
  });
  return EXIT.OK;
}
