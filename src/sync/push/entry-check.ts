/**
 * The local entry files validated offline (`changelog-sync check`, for pull-request checks):
 * every problem pull, push or the build would meet, with file, line, field and fix.
 *
 * Errors: those of `entry-problems.ts`; a file that cannot be read or parsed (invalid UTF-8, a
 * NUL byte, code frontmatter, invalid YAML, a schema break); a new file whose slug push would
 * refuse by its own rule (`push-plan.ts`); two files with one `identifier`; an unreadable
 * `.changelog/state.json`. Warnings: near-miss tags, and a file's name (`entry-file-name.ts`).
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { DEFAULT_MAX_IMAGE_MB } from '../../core/config.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { entryPermalinks } from '../../entry/permalinks.js';
import { urlRefusal } from '../../service/guarded-fetch.js';
import type { LinkContext } from '../../entry/entry-links.js';
import { lineOfField } from '../../entry/frontmatter.js';
import { fileNameProblems } from '../../entry/entry-file-name.js';
import { entryProblems, readServiceTagNames, tagContext, type EntryProblem } from '../../entry/entry-problems.js';
import { listEntryFiles, readEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import { planLocal } from './push-plan.js';
import { loadState } from '../store/state.js';

/** One problem found in a file. */
export interface CheckProblem extends EntryProblem {
  /** Path as shown to the user: relative to the working directory. */
  file: string;
}

/** What {@link checkEntryFiles} found. */
export interface CheckResult {
  /** Files checked. */
  checked: number;
  problems: CheckProblem[];
  /** Number of problems with severity `error`. */
  errors: number;
}

/** Options of {@link checkEntryFiles}. */
export interface CheckOptions {
  contentDir: string;
  stateDir: string;
  /** Check only these files (paths relative to `cwd` or absolute); default every entry file. */
  files?: string[];
  /** Directory paths in messages are relative to, and `files` resolved against: the run's working directory (`Config.cwd`), absolute. */
  cwd: string;
  /** The site directory, whose `images/` the site publishes too; default none. */
  siteDir?: string;
  /** Size in MB over which a local image is a warning; default {@link DEFAULT_MAX_IMAGE_MB}. */
  maxImageMb?: number;
  /** Whether an image on loopback is one push requests (a service on loopback: guarded-fetch.ts `allowsLoopback`); default false. */
  allowLoopback?: boolean;
  /** Today as `YYYY-MM-DD`: which entries have a page (tests); default the UTC date. */
  today?: string;
}

/**
 * Checks entry files. Never touches the network and never writes.
 * @throws nothing for bad files (they are problems); only for an unreadable content directory.
 */
export async function checkEntryFiles(options: CheckOptions): Promise<CheckResult> {
  const cwd = options.cwd;
  // A file outside the mirror is named as it was given (an absolute path stays absolute).
  const givenAs = new Map<string, string>();
  const shown = (abs: string) => givenAs.get(resolve(abs)) ?? (relative(cwd, abs).split(sep).join('/') || abs);
  const problems: CheckProblem[] = [];

  // Every file of the mirror is read: slugs and identifiers must be unique across all.
  const all = await readEntryFiles(options.contentDir, await listEntryFiles(options.contentDir));
  const byAbs = new Map(all.map((f) => [resolve(f.abs), f]));
  let targets: IndexedFile[];
  if (options.files && options.files.length > 0) {
    targets = [];
    for (const given of options.files) {
      const abs = resolve(cwd, given);
      const known = byAbs.get(abs);
      if (known) targets.push(known);
      else if (!existsSync(abs)) problems.push({ file: given, severity: 'error', message: 'no such file', hint: 'check the path' });
      else {
        // Read by its path from the content directory (`../..` when outside it), which
        // readEntryFiles joins to the content directory: never an absolute path joined there.
        const [item] = await readEntryFiles(options.contentDir, [relative(options.contentDir, abs)]);
        givenAs.set(abs, given);
        if (item) targets.push({ ...item, abs });
      }
    }
  } else targets = all;

  // Every problem of a file, worded as push words it (one function: entry-problems.ts);
  // slugs by push's own rule (push-plan.ts), so that a file this check passes is one push
  // sends, and the other way round. Paths are given as shown, so that the messages name
  // files the way the rest of the output does.
  const outside = targets.filter((t) => !byAbs.has(resolve(t.abs)));
  const tags = tagContext([...all, ...outside], readServiceTagNames(options.contentDir));
  const links: LinkContext = {
    imageRoots: [options.contentDir, ...(options.siteDir ? [options.siteDir] : [])],
    permalinks: entryPermalinks(all, options.today ?? new Date().toISOString().slice(0, 10)),
    maxImageBytes: (options.maxImageMb ?? DEFAULT_MAX_IMAGE_MB) * 2 ** 20,
    // An image at an address push never requests, told from the URL alone (no request is made).
    refusedImage: (url) => (URL.canParse(url) ? urlRefusal(new URL(url), options.allowLoopback ?? false) : undefined),
  };
  for (const f of targets) for (const p of entryProblems(f, tags, links)) problems.push({ file: shown(f.abs), ...p });
  // Warnings about the names (entry-file-name.ts): not YYYY-MM-DD-<slug>.md, not portable, one file on macOS or Windows.
  for (const [abs, list] of fileNameProblems(targets, [...all, ...outside])) for (const p of list) problems.push({ file: shown(abs), ...p });
  // A mirrored entry's odd service data, read leniently (remote-data.ts): a warning, the service's to fix.
  for (const f of targets) {
    for (const note of f.entry?.notes ?? []) {
      const field = note.slice(0, note.indexOf(':'));
      problems.push({ file: shown(f.abs), field, line: lineOfField(f.raw.toString('utf8'), field), severity: 'warning', message: note });
    }
  }
  const asShown = [...all, ...outside].filter((f) => !f.error).map((f) => ({ ...f, rel: shown(f.abs) }));
  const checked = new Set(targets.map((t) => resolve(t.abs)));
  const byShown = new Map(asShown.map((f) => [f.rel, f]));
  for (const r of planLocal(asShown).rejected) {
    const f = byShown.get(r.file);
    if (r.field !== 'slug' || !f || !checked.has(resolve(f.abs))) continue;
    for (const p of r.problems ?? []) if (p.field === 'slug') problems.push({ file: r.file, ...p });
  }

  // Two files that claim one remote entry.
  const identifiers = new Map<string, IndexedFile[]>();
  for (const f of all) {
    const id = f.entry?.data.identifier;
    if (id) identifiers.set(id, [...(identifiers.get(id) ?? []), f]);
  }
  for (const f of targets) {
    const id = f.entry?.data.identifier;
    if (!id) continue;
    const others = (identifiers.get(id) ?? []).filter((o) => resolve(o.abs) !== resolve(f.abs));
    if (others.length > 0) {
      problems.push({
        file: shown(f.abs),
        field: 'identifier',
        line: lineOfField(f.raw.toString('utf8'), 'identifier'),
        severity: 'error',
        message: `identifier ${id} is also in ${others.map((o) => shown(o.abs)).join(', ')}: two files claim one remote entry`,
        hint: 'keep one of the files; a copy meant as a new entry must not carry `identifier`',
      });
    }
  }

  // The state pull and push read.
  try {
    await loadState(options.stateDir);
  } catch (err) {
    if (err instanceof ChangelogSyncError) problems.push({ file: shown(join(options.stateDir, 'state.json')), severity: 'error', message: err.message, hint: err.hint });
    else throw err;
  }

  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0)));
  return { checked: checked.size, problems, errors: problems.filter((p) => p.severity === 'error').length };
}
