/**
 * Where a person's JSON is wrong and how to fix it (`JSON.parse` says only "at position 57"): line,
 * column and the usual slips' fixes; a key's line; the known key a misspelt one is closest to.
 */
import { closest, distance } from 'fastest-levenshtein';

/** A syntax error of a JSON text, located. */
export interface JsonSyntaxProblem {
  /** 1-based line. */
  line: number;
  /** 1-based column (in UTF-16 code units, as editors that count characters mostly agree for ASCII). */
  column: number;
  /** What is wrong, e.g. `a comma after the last field`. */
  message: string;
  /** How to fix it. */
  fix: string;
}

/** The 1-based line and column of an offset in a text. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** Locates the syntax error `err` that `JSON.parse(text)` threw and names its fix. */
export function jsonSyntaxProblem(text: string, err: Error): JsonSyntaxProblem {
  // The offset the error names ("at position N"), or the end of the text (an early end).
  const m = /at position (\d+)/.exec(err.message);
  const at = m ? Math.min(Number(m[1]), text.length) : text.length;
  const char = text[at];
  // What comes before the error, whitespace skipped: a comma before `}` or `]` is a trailing one.
  const back = text.slice(0, at).trimEnd();
  if ((char === '}' || char === ']') && back.endsWith(',')) {
    const where = lineColumn(text, back.length - 1);
    return { ...where, message: `a comma after the last ${char === '}' ? 'field' : 'item'}: JSON allows none`, fix: `remove the comma at line ${where.line}, column ${where.column}` };
  }
  const where = lineColumn(text, at);
  if (char === undefined) return { ...where, message: 'the text ends too early', fix: 'close every { with } and every [ with ], and end every string with "' };
  if (char === "'") return { ...where, message: 'a string in single quotes', fix: 'write keys and strings in double quotes: "like this"' };
  if (char === '/' && (text[at + 1] === '/' || text[at + 1] === '*')) return { ...where, message: 'a comment: JSON has none', fix: 'remove the comment (describe settings in README or docs instead)' };
  if (/[A-Za-z_$]/.test(char) && /[{,]$/.test(back)) {
    const word = /^[A-Za-z_$][\w$-]*/.exec(text.slice(at))![0];
    return { ...where, message: `the key ${word} is not in double quotes`, fix: `write it "${word}"` };
  }
  if (/["{[\d-tfn]/.test(char) && /["}\]\d el]$/.test(back)) return { ...where, message: 'a comma is missing before this', fix: `add a comma at the end of line ${lineColumn(text, back.length - 1).line}` };
  return { ...where, message: `unexpected ${JSON.stringify(char)}`, fix: `correct the JSON at line ${where.line}, column ${where.column}` };
}

/** The 1-based line where `"key":` is first written in a JSON text, if it is. */
export function lineOfJsonKey(text: string, key: string, within: readonly string[] = []): number | undefined {
  // The key's first occurrence after each enclosing key's in turn (`workspaces`, `app`, then `tokenEnv`).
  let from = 0;
  for (const outer of within) {
    const i = text.indexOf(JSON.stringify(outer), from);
    if (i >= 0) from = i;
  }
  const at = text.indexOf(JSON.stringify(key), from);
  if (at < 0) return undefined;
  return lineColumn(text, at).line;
}

/**
 * The known name a misspelt one most likely meant: the same but for case, else the closest
 * within a third of its length (at least one edit), else none.
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const same = known.find((k) => k.toLowerCase() === name.toLowerCase());
  if (same !== undefined || known.length === 0) return same;
  const best = closest(name, [...known]);
  return distance(name.toLowerCase(), best.toLowerCase()) <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}
