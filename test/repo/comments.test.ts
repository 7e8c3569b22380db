// Comments that stay true (docs/development.md "Repository tests"): a file or a section of the
// docs a comment names exists, no comment cites an issue number (src/, test/ and bench/), and
// src/'s comments hold no dated figures (a date, a measured ratio, share or size), which go
// stale; those belong in commit messages and docs/benchmarks.md. Code spans and fenced blocks
// hold examples, not prose.
// Comments are read with TypeScript's own parser, so a `//` inside a string is not one.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { anchorOf, anchorsOf } from '../helpers/repo/doc-sections.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A comment of a file: its text and the line (1-based) it starts on. */
interface Comment {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** A path inside a `node_modules/` folder: installed packages, not the project's code. */
const isInstalled = (path: string): boolean => path.split(sep).includes('node_modules');

/** The project's code files under `top` (`src`, `test`, `bench`), as paths from the root with `/`. */
async function codeFiles(top: string): Promise<string[]> {
  const names = await readdir(join(ROOT, top), { recursive: true });
  return names
    .filter((n) => /\.(ts|mts|mjs)$/.test(n) && !n.endsWith('.d.ts') && !isInstalled(n))
    .map((n) => posix.join(top, n.split(sep).join('/')))
    .sort();
}

/** Every comment of `file`, each once (a comment leads one node and trails another). */
async function commentsOf(file: string): Promise<Comment[]> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, Comment>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (!seen.has(r.pos)) seen.set(r.pos, { file, line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

async function commentsUnder(tops: readonly string[]): Promise<Comment[]> {
  const all: Comment[] = [];
  for (const top of tops) for (const file of await codeFiles(top)) all.push(...(await commentsOf(file)));
  return all;
}

/** The base names of the repository's own files (not installed packages, not git's), for bare names. */
async function repositoryNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const e of await readdir(ROOT, { recursive: true, withFileTypes: true })) {
    const rel = join(e.parentPath, e.name).slice(ROOT.length);
    if (e.isFile() && !isInstalled(rel) && !rel.split(sep).includes('.git')) names.add(e.name);
  }
  return names;
}

/**
 * The names of the project's files that a comment mentions, as written. How comments write them:
 * a path from the root (`src/site/render/images.ts`, `docs/sync.md`), a path from src/, test/ or
 * site/ (`core/atomic-file.ts`, `helpers/process/cli.ts`, `_includes/base.njk`), from the build's
 * output (`./dist/cli.js`) or from the commenting file's folder (`./codebase.test.ts`,
 * `../helpers/process/cli.js`: a module as imported, its `.js` for the `.ts`), or a bare name
 * (`site-data.ts`). Only the kinds of file the project is made of count: code (`.ts`, `.mjs`,
 * `.njk`, a relative `.js`), the docs' pages and the site's assets; a `.json` or an entry's
 * `.md` in a comment is mostly a file the tool writes (`state.json`, `entries/x.md`).
 */
const NAME = /(?<![\w@/.*-])((?:\.{1,2}\/)*[\w-][\w./-]*?\.(?:ts|mts|mjs|njk|js|css|xsl|md))(?![\w/-])/g;

/** Files a team adds to its own site/ (docs/site.md), named in comments that say what happens when it does. */
const TEAM_FILES = new Set(['custom.css']);

function isProjectName(name: string): boolean {
  if (TEAM_FILES.has(name)) return false;
  if (name.endsWith('.js')) return name.startsWith('./') || name.startsWith('../');
  if (name.endsWith('.md')) return name.startsWith('docs/') || /^[A-Z]+\.md$/.test(name);
  return true;
}

/** Where `name`, written in a comment of `file`, may point. */
function candidates(name: string, file: string): string[] {
  const asTs = name.endsWith('.js') ? name.replace(/\.js$/, '.ts') : name;
  // The build's output mirrors src/: `./dist/cli.js` is `src/cli.ts`.
  const built = asTs.replace(/^(?:\.\/)?dist\//, 'src/');
  const from = [ROOT, join(ROOT, 'src'), join(ROOT, 'test'), join(ROOT, 'site'), join(ROOT, dirname(file))];
  return from.flatMap((dir) => [join(dir, name), join(dir, asTs), join(dir, built)]);
}

const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';

/**
 * A dated figure: a date in prose, whole or in part (27 November, November 27, November 2026,
 * 2026-11-22, 2026-11; one in a code span, `2026-02-30`, is an example, and a standard's
 * "draft 2020-12" a name), a measured ratio (0.92x; an image's 2x is a density), share (0.92 of
 * the time, 7%) or size or time (1.7 GB, about 550 MB, peaked 147 MB higher, took 0.45 s). A
 * limit ("a 5 MB entry") is not one.
 */
const DATED_FIGURES: readonly RegExp[] = [
  /(?<!draft )\b20\d\d-(?:0[1-9]|1[0-2])(?:-|\b)/,
  new RegExp(`\\b${MONTH} (?:20\\d\\d|[0-3]?\\d)\\b|\\b[0-3]?\\d ${MONTH}\\b`),
  /\b\d+\.\d+x\b/,
  /\b0\.\d+ of the\b/,
  /\d\s?%/,
  /\b\d+\.\d+\s?(?:GB|MB|KB|s|ms)\b/,
  /\b(?:about|~|peak(?:ed)?|took|takes|spent|measured:?)\s?\d[\d,.]*\s?(?:GB|MB|KB|s|ms|µs)\b/,
];

/** A comment's line with its code spans emptied: what a span holds is an example, not prose. */
const prose = (line: string): string => line.replace(/`[^`]*`/g, '``');

/** Whether a comment's line holds a dated figure, outside its code spans. */
const hasDatedFigure = (line: string): boolean => DATED_FIGURES.some((re) => re.test(prose(line)));

/** The lines of comments (where each is, and its text) outside fenced code blocks, which hold examples. */
function proseLinesOf(comments: readonly Comment[]): { at: string; line: string }[] {
  return comments.flatMap((c) => {
    let fenced = false;
    return c.text.split('\n').flatMap((line, i) => {
      const fence = /^\s*(?:\*\s*)?```/.test(line);
      if (fence) fenced = !fenced;
      return fence || fenced ? [] : [{ at: `${c.file}:${c.line + i}`, line }];
    });
  });
}

/**
 * The project's issue numbers: `issue 14`, `issues 12 and 25`, `#14` (but a character reference
 * `&#42;`, an HTML colour, a Unicode annex "UAX #9", or another project's `owner/repo#14`: the
 * upstream bug a workaround waits on, where its state is kept).
 */
const ISSUE_NUMBER = /\bissues?\s+#?\d+|(?<![&\w]|UAX )#\d+\b(?!;)/i;

/**
 * A section of a page of docs/ (or of the README) as comments name it: by its anchor
 * (`docs/sync.md#the-push-lease`) or by its heading, quoted after the page
 * (`docs/sync.md, "A sync is one job"`, `docs/architecture.md "Layers"`).
 */
const SECTION = /(?<![\w./-])(?:docs\/)?([\w-]+\.md)(?:#([\w-]+)|,? "([^"\n]+)")/g;

/** The page a comment's `name` (`sync.md`, `README.md`) is, if it is one of the repository's. */
function pageNamed(name: string): string | undefined {
  const path = name === 'README.md' ? join(ROOT, name) : join(ROOT, 'docs', name);
  return existsSync(path) ? path : undefined;
}

describe('comments', () => {
  it('every file a comment in src/, test/ or bench/ names exists', async () => {
    const comments = await commentsUnder(['src', 'test', 'bench']);
    expect(comments.length).toBeGreaterThan(2000);
    const names = await repositoryNames();
    const missing: string[] = [];
    let checked = 0;
    for (const c of comments) {
      for (const m of c.text.matchAll(NAME)) {
        const name = m[1]!;
        if (!isProjectName(name)) continue;
        checked++;
        const found = name.includes('/') ? candidates(name, c.file).some((p) => existsSync(p)) : names.has(name) || names.has(name.replace(/\.js$/, '.ts'));
        if (!found) missing.push(`${c.file}:${c.line + (c.text.slice(0, m.index).match(/\n/g)?.length ?? 0)}: ${name}`);
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(missing).toEqual([]);
  });

  it('every section of the docs a comment in src/, test/ or bench/ names exists', async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { at, line } of proseLinesOf(await commentsUnder(['src', 'test', 'bench']))) {
      for (const m of line.matchAll(SECTION)) {
        const page = pageNamed(m[1]!);
        if (!page) continue;
        checked++;
        const anchor = m[2] ?? anchorOf(m[3]!);
        if (!(await anchorsOf(page)).has(anchor)) missing.push(`${at}: ${m[0]}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('no comment in src/, test/ or bench/ cites an issue number', async () => {
    const lines = proseLinesOf(await commentsUnder(['src', 'test', 'bench']));
    const cited = lines.filter(({ line }) => ISSUE_NUMBER.test(prose(line)));
    expect(cited.map(({ at, line }) => `${at}: ${line.trim()}`)).toEqual([]);
  });

  it('no comment in src/ holds a dated figure (a date, or a measured ratio, share or size)', async () => {
    const dated = proseLinesOf(await commentsUnder(['src'])).filter(({ line }) => hasDatedFigure(line));
    expect(dated.map(({ at, line }) => `${at}: ${line.trim()}`)).toEqual([]);
  });

  it('the patterns find what they are for, and not their look-alikes', () => {
    for (const s of ['issue 14', '(issues 12 and 25)', 'see #14']) expect(ISSUE_NUMBER.test(s), s).toBe(true);
    for (const s of ['`&#42;`', "'#eeeeee'", 'UAX #9', 'reissue 3', '11ty/eleventy#3371']) expect(ISSUE_NUMBER.test(s), s).toBe(false);
    for (const s of ['on 2026-11-22', 'in November 2026', 'on 27 November', 'November 27, late', 'since 2026-11-', 'in 2026-11', '0.92x', '1.3x', '0.92 of the time', 'costs 7%', '1.7 GB', 'about 550 MB', 'took 0.45 s more'])
      expect(hasDatedFigure(s), s).toBe(true);
    for (const s of ['e.g. `entries/2026-11-22-x.md`', 'a 5 MB entry', 'at 1x and 2x', 'max 30 min', 'the 0x prefix', 'JSON Schema draft 2020-12', 'in 2026 entries']) expect(hasDatedFigure(s), s).toBe(false);
    expect([...'see `src/site/render/images.ts`, ./plugin.js and docs/sync.md#pull'.matchAll(NAME)].map((m) => m[1])).toEqual(['src/site/render/images.ts', './plugin.js', 'docs/sync.md']);
  });
});
