/**
 * GitHub Actions workflow commands and the job summary
 * (docs.github.com: "Workflow commands for GitHub Actions").
 */
import { appendFileSync } from 'node:fs';

/** Escapes a workflow command's message (`%`, CR, LF). */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow command's property value (also `:` and `,`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * The bidirectional controls (UAX #9: embeddings, overrides, isolates, marks): in a name they
 * make a terminal or log show text reordered (`exe.txt` as `txt.exe`, "Trojan Source").
 */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** Control characters (Unicode `Cc`) but tab and line feed: C0, DEL and C1 (U+0085 NEL among them); and the bidirectional controls. */
const CONTROL = new RegExp(`[^\\P{Cc}\\t\\n]|[${BIDI}]`, 'gu');

/** The bidirectional controls alone. */
const BIDI_CONTROL = new RegExp(`[${BIDI}]`, 'gu');

/** `\uNNNN`: how JavaScript and JSON write a character of the Basic Multilingual Plane. */
const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Controls as `\xNN` and bidirectional controls as `\uNNNN` (CRLF first made LF), so data cannot
 * move the cursor, recolour a terminal, start a log line with a CR (the runner splits on CR too)
 * or show its text reordered.
 */
export function escapeControl(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (c) => (c.charCodeAt(0) > 0xff ? unicodeEscape(c) : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/**
 * Only the bidirectional controls as `\uNNNN`: for JSON (they can only be in its strings, the
 * same JSON), workflow commands and the job summary, whose other characters have escapes of their own.
 */
export function escapeBidi(text: string): string {
  return text.replace(BIDI_CONTROL, unicodeEscape);
}

/**
 * Makes log text unreadable as workflow commands, line by line: a leading `::` (after the
 * whitespace the runner trims) gets `%3A`, and `##[` (read anywhere) becomes `%23#[`. Only the
 * tool's own commands are written without it. Apply {@link escapeControl} first.
 */
export function neutralizeCommands(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^(\s*):(?=:)/, '$1%3A').replace(/#(?=#\[)/g, '%23'))
    .join('\n');
}

/** {@link neutralizeCommands} for JSON: `##[` becomes `##\u005b` inside strings; no pretty-printed line starts with `::`. */
export function neutralizeJsonCommands(json: string): string {
  return json.replace(/##\[/g, '##\\u005b');
}

/** Where an annotation points. */
export interface AnnotationProperties {
  /** Path relative to the repository root. */
  file?: string;
  /** 1-based line. */
  line?: number;
  title?: string;
}

/** `::error file=...,line=...::message` (or warning/notice). */
export function annotation(level: 'error' | 'warning' | 'notice', message: string, props: AnnotationProperties = {}): string {
  const parts: string[] = [];
  if (props.file) parts.push(`file=${escapeProperty(props.file)}`);
  if (props.line !== undefined) parts.push(`line=${props.line}`);
  if (props.title) parts.push(`title=${escapeProperty(props.title)}`);
  return `::${level}${parts.length ? ` ${parts.join(',')}` : ''}::${escapeData(message)}`;
}

/** `::add-mask::value`: the runner hides the value in every later log line. */
export function addMask(value: string): string {
  return `::add-mask::${escapeData(value)}`;
}

/** C0 controls and DEL (`Cc` but the C1 controls), runs of them. */
const C0_AND_DEL = /[^\P{Cc}\u0080-\u009f]+/gu;

/**
 * Data as literal text in the job summary's Markdown: controls become spaces and every ASCII
 * punctuation is backslash-escaped, so no data adds a heading, link, image, HTML or table cell.
 */
export function markdownText(data: string): string {
  return data.replace(C0_AND_DEL, ' ').replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/**
 * Data (a file name) as a verbatim code span: controls become spaces, the fence one backtick
 * longer than the longest run inside, padded when the text starts or ends with one.
 */
export function markdownCode(data: string): string {
  const text = data.replace(C0_AND_DEL, ' ');
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Appends Markdown to the job summary (`$GITHUB_STEP_SUMMARY` of `env`, the CLI's environment); nothing when unset. */
export function appendJobSummary(markdown: string, env: NodeJS.ProcessEnv): void {
  const path = env.GITHUB_STEP_SUMMARY;
  if (path) appendFileSync(path, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
}

/**
 * Sets a step output (`$GITHUB_OUTPUT` of `env`, `Config.env`; read as `steps.<id>.outputs.<name>`); nothing when unset.
 * @throws {Error} when the value holds a line break (it would start another output).
 */
export function setStepOutput(name: string, value: string, env: NodeJS.ProcessEnv): void {
  const path = env.GITHUB_OUTPUT;
  if (!path) return;
  if (/[\r\n]/.test(name + value)) throw new Error(`a step output is one line: ${JSON.stringify(name)}`);
  appendFileSync(path, `${name}=${value}\n`);
}
