/**
 * The problems of one entry file, one wording for `check` and `push`: a file that cannot be
 * read or parsed, a schema break, and the rules of a new entry (push creates it for good: the
 * service has no update or delete): a template line left (`placeholderLines`), an empty body,
 * its images and links (`entry-links.ts`, given a {@link LinkContext}); and for any entry a
 * near-miss tag (`Improvment` beside `Improvement`). A problem carries no path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { distance } from 'fastest-levenshtein';
import { ChangelogSyncError, ValidationError } from '../core/errors.js';
import { slugify } from './slug.js';
import { lineOfField } from './frontmatter.js';
import { placeholderLines } from './entry-template.js';
import { linkProblems, type LinkContext } from './entry-links.js';
import type { IndexedFile } from './entry-files.js';
import { TAGS_DATA_FILE } from './workspace-binding.js';

/** One problem of a file, without the file's path. */
export interface EntryProblem {
  /** 1-based line in the file, when known. */
  line?: number;
  field?: string;
  severity: 'error' | 'warning';
  /** What is wrong, e.g. `publish_at: 2026-02-30 is not a date that exists`. */
  message: string;
  /** How to fix it. */
  hint?: string;
}

/**
 * What the tag rule compares against, computed once per set of files by
 * {@link tagContext} (per file it would be quadratic in the number of files).
 */
export interface TagContext {
  /** Tag names of `content/_data/tags.json` (the service's tags). */
  service: readonly string[];
  /** The service's tags by site key and by slug. */
  serviceByKey: ReadonlyMap<string, string>;
  /** Files using each tag, by site key. */
  uses: ReadonlyMap<string, number>;
  /** Files using each tag, by the tag as written (trimmed): a file's own use subtracted, the tags other entries use. */
  written: ReadonlyMap<string, number>;
}

/** The names in `content/_data/tags.json`; none when the file is missing or not a list (a mirror that was never pulled). */
export function readServiceTagNames(contentDir: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(join(contentDir, TAGS_DATA_FILE), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(data)) return [];
  return data.flatMap((t: unknown) => {
    const name = (t as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name.trim() ? [name.trim()] : [];
  });
}

/** The tag context of a set of files (see {@link TagContext}). */
export function tagContext(files: readonly IndexedFile[], service: readonly string[]): TagContext {
  const uses = new Map<string, number>();
  const written = new Map<string, number>();
  for (const f of files) {
    const tags = f.entry?.data.tags ?? [];
    for (const key of new Set(tags.map(keyOf))) if (key) uses.set(key, (uses.get(key) ?? 0) + 1);
    for (const t of writtenTags(tags)) written.set(t, (written.get(t) ?? 0) + 1);
  }
  const serviceByKey = new Map(service.flatMap((n) => [[keyOf(n), n] as const, [slugify(n), n] as const]));
  return { service, serviceByKey, uses, written };
}

/** A file's distinct non-empty tags as written (trimmed). */
function writtenTags(tags: readonly string[]): Set<string> {
  return new Set(tags.map((t) => t.trim()).filter((t) => t !== ''));
}

/**
 * Every problem of a file, each once: parse and schema errors and near-miss tags for any file
 * (tags are local); template, empty-body, image and link rules only for a new file (a mirrored
 * body is the service's). Without `links`, images and links are not checked.
 */
export function entryProblems(f: IndexedFile, tags: TagContext, links?: LinkContext): EntryProblem[] {
  if (f.error) return problemsOfError(f.error, f);
  const e = f.entry!;
  // A mirrored entry's text is the service's; its tags are the writer's (the service has none).
  if (e.data.identifier) return tagProblems(f, tags);
  const problems: EntryProblem[] = [];
  const text = f.raw.toString('utf8');
  // Body lines start after the frontmatter: line numbers are the file's.
  const bodyStart = text.split('\n').length - e.body.split('\n').length;
  if (e.body.trim() === '') {
    problems.push({ line: bodyStart + 1, severity: 'error', message: 'the body is empty: the entry would be published without text', hint: 'write the entry below the frontmatter' });
  }
  for (const { index, text: line } of placeholderLines(e.body)) {
    problems.push({ line: bodyStart + index + 1, severity: 'error', message: `"${line}" is left from the template of \`changelog-sync new\``, hint: 'replace the template lines with the entry\'s text' });
  }
  if (links) problems.push(...linkProblems(e.body, f.rel, links, bodyStart));
  problems.push(...tagProblems(f, tags));
  return problems;
}

/** Site key of a tag: the site resolves tags by lowercased name or slug (src/site/render/site-data.ts). */
const keyOf = (tag: string) => tag.trim().toLowerCase();

/** Edits a tag may be away from a known one and still count as a misspelling of it. */
function nearness(tag: string): number {
  const n = [...tag].length;
  return n <= 3 ? 0 : n < 8 ? 1 : 2;
}

/**
 * The closest known tag within {@link nearness} when it alone is that close and has the same
 * digits: tags differing in a digit are versions or years (`v1.2`, `2025`), not misspellings.
 */
function nearest(tag: string, known: Iterable<string>): string | undefined {
  const key = keyOf(tag);
  const digits = key.replace(/\D/g, '');
  let best: { name: string; d: number } | undefined;
  const atBest = new Set<string>();
  for (const k of known) {
    const kk = keyOf(k);
    if (kk.replace(/\D/g, '') !== digits) continue;
    const d = distance(key, kk);
    if (d === 0 || d > nearness(key)) continue;
    if (!best || d < best.d) {
      best = { name: k, d };
      atBest.clear();
    }
    if (d === best.d) atBest.add(kk);
  }
  return atBest.size === 1 ? best?.name : undefined;
}

function tagProblems(f: IndexedFile, ctx: TagContext): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const line = lineOfField(f.raw.toString('utf8'), 'tags');
  const own = writtenTags(f.entry!.data.tags ?? []);
  /** Tags other entries use: those used by more files than this one's own use. */
  const others = [...ctx.written].filter(([t, n]) => n - (own.has(t) ? 1 : 0) > 0).map(([t]) => t);
  for (const tag of f.entry!.data.tags ?? []) {
    if (!tag.trim()) continue;
    const same = ctx.serviceByKey.get(keyOf(tag)) ?? ctx.serviceByKey.get(slugify(tag));
    if (same !== undefined) {
      if (same !== tag.trim()) problems.push({ line, field: 'tags', severity: 'warning', message: `tags: "${tag}" is written "${same}" in tags.json`, hint: `write \`${same}\`` });
      continue;
    }
    // tags.json decides first: a misspelling shared by several files is still one.
    // Among the entries' own tags, the one fewer files use is the misspelling (a tie: both are named).
    const count = (t: string) => ctx.uses.get(keyOf(t)) ?? 1;
    const fix = nearest(tag, ctx.service) ?? nearest(tag, others.filter((o) => count(o) >= count(tag)));
    if (fix !== undefined) {
      // Against tags.json, the service's tags, a misspelling is refused; against tags only
      // other entries use it is a warning: either of the two may be the new one.
      const inService = ctx.service.includes(fix);
      const where = inService ? 'tags.json has' : 'other entries use';
      problems.push({
        line,
        field: 'tags',
        severity: inService ? 'error' : 'warning',
        message: `tags: "${tag}" is not a known tag, and ${where} "${fix}": it would get a tag page of its own`,
        hint: `write \`${fix}\``,
      });
    }
  }
  return problems;
}

/** One problem per issue of a parse or validation error, the message without the path the error's own message starts with. */
function problemsOfError(err: ChangelogSyncError, f: Pick<IndexedFile, 'raw'>): EntryProblem[] {
  if (err instanceof ValidationError && err.issues.length > 0) {
    return err.issues.map((i) => {
      const [message, fix] = splitFix(i.message);
      return { field: i.field, line: lineOfField(f.raw.toString('utf8'), i.field), severity: 'error' as const, message: `${i.field}: ${message}`, hint: fix };
    });
  }
  const [message, fix] = splitFix(stripPath(err.message, err.file));
  return [{ line: err.line, field: err.field, severity: 'error', message, hint: err.hint ?? fix }];
}

/** `entries/x.md:4: invalid YAML` -> `invalid YAML` (the caller shows the path its own way). */
export function stripPath(message: string, file: string | undefined): string {
  if (file && message.startsWith(file)) return message.slice(file.length).replace(/^(?::\d+)?: /, '');
  return message;
}

/** "must be X (fix: do Y)" -> ["must be X", "do Y"]. */
export function splitFix(message: string): [string, string | undefined] {
  const m = /^(.*) \(fix: (.*)\)$/s.exec(message);
  return m ? [m[1]!, m[2]!] : [message, undefined];
}
