/**
 * Pieces of the subscriber commands' reports (`subscribers-*.ts`): terminal-safe cells,
 * counts, capped row lists, the job summary's table and a batch's outcome in words.
 */

/** Rows listed per group in human output; `--json` lists every row. */
export const HUMAN_ROWS = 100;

/** A cell made safe for a terminal: control characters (line breaks, escape sequences) become spaces. */
export function printable(value: string): string {
  return value.replace(/\p{Cc}+/gu, ' ');
}

/** `n` and the noun, singular or plural: `1 row`, `1,200 rows`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** The first `limit` rows as lines, and a line saying how many more there are (`--json` lists every row). */
export function cap<T>(rows: readonly T[], limit: number, line: (row: T) => string, indent: string): string[] {
  const out = rows.slice(0, limit).map(line);
  if (rows.length > limit) out.push(`${indent}… and ${(rows.length - limit).toLocaleString('en-US')} more (--json lists every row)`);
  return out;
}

/** A titled list, `Title (n): note` and its first `limit` rows ({@link cap}, indented two spaces); nothing when there are none. */
export function section<T>(title: string, rows: readonly T[], line: (row: T) => string, note = '', limit = HUMAN_ROWS): string[] {
  return rows.length === 0 ? [] : [`${title} (${rows.length.toLocaleString('en-US')}):${note && ` ${note}`}`, ...cap(rows, limit, line, '  ')];
}

/** A Markdown table of counts (no addresses: the job summary is as public as the log). */
export function countsMarkdown(title: string, rows: Array<[string, number]>): string {
  return [`### changelog-sync ${title}`, '', '| | |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${v} |`), ''].join('\n');
}

/** What became of a batch that was not planned, in words; `done` says what a successful one did. */
export function batchOutcome(b: { status: string; error?: { code: string; message: string } | undefined }, done: string): string {
  if (b.status === 'done') return done;
  if (b.status === 'failed') return `failed: ${b.error?.code}: ${b.error?.message}`;
  if (b.status === 'deferred') return "deferred: the day's request budget is spent";
  if (b.status === 'interrupted') return 'not sent: the run was told to stop (SIGTERM or Ctrl-C) before it';
  return 'not sent: an earlier batch failed';
}

