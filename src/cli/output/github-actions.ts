/**
 * GitHub Actions workflow commands and the job summary
 * (docs.github.com: "Workflow commands for GitHub Actions").
 *
 * @module
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
 * The bidirectional controls (Unicode "Bidirectional Algorithm", UAX #9): the embeddings and
 * overrides U+202A-U+202E, the isolates U+2066-U+2069, and the marks U+200E, U+200F and
 * U+061C. In a name they make a terminal or a log viewer show text in another order than
 * it is (`exe.txt` read as `txt.exe`), the "Trojan Source" trick.
 */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** Control characters (Unicode `Cc`) but tab and line feed: C0, DEL and C1 (U+0085 NEL among them); and the bidirectional controls. */
const CONTROL = new RegExp(`[^\\P{Cc}\\t\\n]|[${BIDI}]`, 'gu');

/** The bidirectional controls alone. */
const BIDI_CONTROL = new RegExp(`[${BIDI}]`, 'gu');

/** `\uNNNN`: how JavaScript and JSON write a character of the Basic Multilingual Plane. */
const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Shows the control characters of a text as `\xNN` and the bidirectional controls as
 * `\uNNNN` (a CRLF becomes a line feed first), so that data cannot move the cursor,
 * recolour a terminal, start a new log line with a carriage return (the Actions runner
 * splits lines on CR as well as LF), or show its text reordered.
 */
export function escapeControl(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (c) => (c.charCodeAt(0) > 0xff ? unicodeEscape(c) : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/**
 * Only the bidirectional controls written `\uNNNN`: for JSON (the same JSON, since they can
 * only be inside its strings, where every other control is escaped already), workflow
 * commands and the job summary, whose other characters have escapes of their own.
 */
export function escapeBidi(text: string): string {
  return text.replace(BIDI_CONTROL, unicodeEscape);
}

/**
 * Makes plain log text unreadable as workflow commands, line by line: a line that starts
 * (after whitespace, which the runner trims) with `::` gets its first colon written `%3A`,
 * and `##[` (the runner's older command syntax, read anywhere in a line) becomes `%23#[`.
 * Only the tool's own commands ({@link annotation}, {@link addMask}) are written without it.
 * Apply {@link escapeControl} first (a CR is a line break to the runner).
 */
export function neutralizeCommands(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^(\s*):(?=:)/, '$1%3A').replace(/#(?=#\[)/g, '%23'))
    .join('\n');
}

/**
 * The JSON form of {@link neutralizeCommands}: `##[` becomes `##\u005b`, the same JSON
 * (in JSON it can only be inside a string); a pretty-printed line never starts with `::`.
 */
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
 * Data (a name, a title, a message) as literal text in the job summary's Markdown: line
 * breaks and other control characters become spaces, and every ASCII punctuation
 * character is backslash-escaped (CommonMark lets any be), so that no data can add a
 * heading, a link, an image, HTML or a table cell.
 */
export function markdownText(data: string): string {
  return data.replace(C0_AND_DEL, ' ').replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/**
 * Data (a file name) as a Markdown code span, shown verbatim: control characters become
 * spaces, and the fence is one backtick longer than the longest run of backticks inside
 * (CommonMark "Code spans"), padded when the text starts or ends with one.
 */
export function markdownCode(data: string): string {
  const text = data.replace(C0_AND_DEL, ' ');
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Appends Markdown to the job summary (`$GITHUB_STEP_SUMMARY` of `env`, the environment the
 * CLI was started with). Does nothing when the variable is unset.
 */
export function appendJobSummary(markdown: string, env: NodeJS.ProcessEnv): boolean {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return false;
  appendFileSync(path, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return true;
}

/**
 * Sets a step output (`$GITHUB_OUTPUT` of `env`: `name=value` lines), read by later steps as
 * `steps.<id>.outputs.<name>`. Does nothing when the variable is unset.
 *
 * @param value one line (a newline would start another output).
 * @param env the environment the CLI was started with (`Config.env`).
 * @throws {Error} when the value contains a line break.
 */
export function setStepOutput(name: string, value: string, env: NodeJS.ProcessEnv): boolean {
  const path = env.GITHUB_OUTPUT;
  if (!path) return false;
  if (/[\r\n]/.test(name + value)) throw new Error(`a step output is one line: ${JSON.stringify(name)}`);
  appendFileSync(path, `${name}=${value}\n`);
  return true;
}
