/**
 * The rules `check` applies to an entry file's name, as warnings (docs/entry-file.md#the-file-name):
 * a new file is named `YYYY-MM-DD-<slug>.md` after its `publish_at` and slug; every name is
 * portable (`portable-name.ts`); no two names are one file on macOS or Windows (case or Unicode
 * normalisation only): a clone there holds one of them.
 */
import { basename } from 'node:path';
import { entryFileName } from './entry-file.js';
import { slugify } from './slug.js';
import type { EntryProblem } from './entry-problems.js';
import type { IndexedFile } from './entry-files.js';
import { nameKey, portableNameProblem } from './portable-name.js';

const DATED_NAME = /^(\d{4}-\d{2}-\d{2})-(.+)\.md$/;

/**
 * The name problems (warnings) of each of `targets`, by `abs` path.
 * @param all every entry file of the folder, `targets` included (for names that fold together).
 */
export function fileNameProblems(targets: readonly IndexedFile[], all: readonly IndexedFile[]): Map<string, EntryProblem[]> {
  const byKey = new Map<string, IndexedFile[]>();
  for (const f of all) {
    const key = nameKey(f.rel);
    byKey.set(key, [...(byKey.get(key) ?? []), f]);
  }
  const out = new Map<string, EntryProblem[]>();
  for (const f of targets) {
    const problems: EntryProblem[] = [];
    const name = basename(f.rel);
    const portable = portableNameProblem(name);
    if (portable) problems.push({ severity: 'warning', message: `the file name ${portable}: a clone on Windows or macOS cannot hold it`, hint: 'rename the file to YYYY-MM-DD-<slug>.md' });
    const same = (byKey.get(nameKey(f.rel)) ?? []).filter((o) => o.abs !== f.abs);
    if (same.length > 0) {
      problems.push({
        severity: 'warning',
        message: `the file name differs from ${same.map((o) => basename(o.rel)).join(', ')} only in case or Unicode form: on macOS and Windows they are one file`,
        hint: 'rename one of them',
      });
    }
    const expected = expectedName(f);
    if (expected !== undefined && !fits(name, expected)) {
      problems.push({ severity: 'warning', message: `the file name does not follow YYYY-MM-DD-<slug>.md for its date and slug: expected ${expected}`, hint: `rename the file to ${expected}` });
    }
    if (problems.length > 0) out.set(f.abs, problems);
  }
  return out;
}

/**
 * The name a new file should have: `publish_at` (else the date its name has) and its
 * slug; undefined for a file that does not parse or has an `identifier` (pull named it).
 */
function expectedName(f: IndexedFile): string | undefined {
  const d = f.entry?.data;
  if (!d || d.identifier) return undefined;
  const date = d.publish_at ?? DATED_NAME.exec(basename(f.rel))?.[1];
  const slug = d.slug ?? slugify(d.title);
  return date ? entryFileName(date, slug) : `YYYY-MM-DD-${entryFileName(null, slug).slice('undated-'.length)}`;
}

/** True when `name` has the expected date and a slug part that slugifies to the expected one (`Release-notes` for `release-notes`). */
function fits(name: string, expected: string): boolean {
  const have = DATED_NAME.exec(name);
  const want = DATED_NAME.exec(expected);
  if (!have || !want) return false;
  return have[1] === want[1] && slugify(have[2]!) === want[2];
}
