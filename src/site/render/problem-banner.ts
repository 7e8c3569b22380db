/**
 * The preview's problem banner (`dev`): what is wrong with the content, shown at the top of
 * every page, each kind of problem under a heading that says what it means for the site.
 * The kinds are those of `check` (src/entry/entry-problems.ts), and a link out of the
 * project, which stops the rebuilds.
 */
import { escapeHtml } from '../../core/markup-text.js';

/**
 * What a problem means for the preview:
 *
 * - `outside`: a symbolic link out of the project; the site is not rebuilt while it stands.
 * - `unreadable`: an entry file that cannot be read or parsed (frontmatter, encoding): not in the site.
 * - `schema`: an entry file with a field that breaks the entry schema: not in the site.
 * - `content`: a new entry's text that `check` and `push` refuse (a line left from the
 *   template, an empty body): in the site, but it would not be published as it is.
 * - `tag`: a tag a letter or two away from a known one: in the site, with a tag page of its own.
 */
export type ProblemKind = 'outside' | 'unreadable' | 'schema' | 'content' | 'tag';

/** A problem to show on every page while serving. */
export interface PageProblem {
  kind: ProblemKind;
  /** The file, as the output names it. */
  file: string;
  line?: number;
  /** What is wrong. */
  message: string;
  /** How to fix it. */
  hint?: string;
  /** As `check` rates it (entry-problems.ts); default `error`. */
  severity?: 'error' | 'warning';
}

/** The problems that refuse a rebuild: the build would copy through the link. */
export function refusesRebuild(problem: PageProblem): boolean {
  return problem.kind === 'outside';
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Each kind's heading (of `n` files) and what it means for the site, in the banner's order. */
const KINDS: ReadonlyArray<{ kind: ProblemKind; heading: (n: number) => string; meaning: string }> = [
  { kind: 'outside', heading: (n) => `${plural(n, 'link', 'links')} out of the project`, meaning: 'the site is not rebuilt until it is removed' },
  { kind: 'unreadable', heading: (n) => `${plural(n, 'entry file', 'entry files')} cannot be read`, meaning: 'not in the site until fixed' },
  { kind: 'schema', heading: (n) => `${plural(n, 'entry file has', 'entry files have')} a field that breaks the entry schema`, meaning: 'not in the site until fixed' },
  { kind: 'content', heading: (n) => `${plural(n, 'new entry', 'new entries')} that check and push refuse as written`, meaning: 'shown here, but not published until fixed' },
  { kind: 'tag', heading: (n) => `${plural(n, 'entry file has', 'entry files have')} a tag that looks misspelt`, meaning: 'it gets a tag page of its own' },
];

/** The banner listing problems by kind, injected right after `<body>`; everything from data escaped. */
export function problemBanner(problems: readonly PageProblem[]): string {
  const sections = KINDS.flatMap(({ kind, heading, meaning }) => {
    const these = problems.filter((p) => p.kind === kind);
    if (these.length === 0) return [];
    const files = new Set(these.map((p) => p.file)).size;
    const items = these
      .map((p) => `<li><code>${escapeHtml(p.file)}${p.line ? `:${p.line}` : ''}</code> ${escapeHtml(p.message)}${p.hint ? ` (fix: ${escapeHtml(p.hint)})` : ''}</li>`)
      .join('');
    return [`<p style="margin:0"><strong>${heading(files)}</strong> (${meaning}):</p><ul style="margin:.25rem 0 .5rem;padding-left:1.25rem">${items}</ul>`];
  });
  return (
    `<aside id="changelog-sync-problems" role="alert" style="margin:0;padding:1rem 1.25rem;background:#fff1f0;color:#86181d;border-bottom:2px solid #d73a49;font:14px/1.5 system-ui,sans-serif">` +
    `${sections.join('')}</aside>`
  );
}
