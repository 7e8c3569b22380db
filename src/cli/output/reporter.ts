/**
 * Where commands speak: progress and logs on stderr, the result on stdout (text, or one JSON
 * document with `--json`); in GitHub Actions also annotations, masks and the job summary.
 *
 * Everything written is data-safe: secrets masked, control characters shown as `\xNN` and
 * bidirectional controls as `\uNNNN`; in Actions no printed line can be read as a workflow
 * command (`neutralizeCommands`) but the tool's own. Lines are neutralised where they are
 * written, not where data enters a message, so a message made from any data passes here.
 */
import cliProgress from 'cli-progress';
import pc from 'picocolors';
import { isGitHubActions } from '../../core/ci-env.js';
import { addMask, annotation, appendJobSummary, escapeBidi, escapeControl, neutralizeCommands, neutralizeJsonCommands } from './github-actions.js';

/** Options of {@link Reporter}. */
export interface ReporterOptions {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** Default process.stdout. */
  out?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Default process.stderr. */
  err?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Secrets to mask in everything written (the token). */
  secrets?: string[];
  /**
   * The environment the CLI was started with (GitHub Actions detection, the job summary,
   * `NO_COLOR`), read at its entry (src/cli.ts). Default: none (not GitHub Actions).
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The working directory the CLI was started in (`Config.cwd`): an error's absolute paths
   * under it are shown relative to it (handle-error.ts). Default: none (shown as they are).
   */
  cwd?: string;
  /**
   * The workspace of a project with several this reporter speaks for ({@link Reporter.forWorkspace}):
   * its `--json` result is kept for the whole run's, and with {@link ReporterOptions.tagLines}
   * each line it writes starts with `[<key>] `.
   */
  workspace?: string;
  /** With {@link ReporterOptions.workspace}: whether lines start with `[<key>] ` (a run over several). */
  tagLines?: boolean;
}

/** A problem in a local file, for the human line and the Actions annotation. */
export interface FileProblem {
  /** Path relative to the working directory (the repository root in Actions). */
  file: string;
  line?: number;
  message: string;
  level?: 'error' | 'warning';
}

/** Delay before a progress bar appears, ms. */
const SHOW_BAR_AFTER_MS = 1000;

/** A progress counter (see {@link Reporter.counter}). Its members are functions bound to it: `onSent: bar.update` works. */
export interface Counter {
  /** `done` of `total` units are done. */
  update: (done: number, total: number) => void;
  /** Removes the bar (call once, at the end). */
  stop: () => void;
  /** A line about the work (a batch done): on stderr, or at --verbose only while the bar is on screen. */
  line: (message: string) => void;
}

/** The output channel handed to every command. */
export class Reporter {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Running as a GitHub Actions step. */
  readonly actions: boolean;
  /** The working directory paths are shown relative to ({@link ReporterOptions.cwd}). */
  readonly cwd: string | undefined;
  private readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly err: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly secrets: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly color: boolean;
  /** Whether {@link Reporter.failure} has shown the run's failure. */
  private failureShown = false;
  /** {@link ReporterOptions.workspace}. */
  readonly workspace: string | undefined;
  /** With {@link Reporter.workspace} and `--json`: the result, for the run's document (src/cli/workspaces.ts). */
  kept: unknown;
  private readonly options: ReporterOptions;

  constructor(options: ReporterOptions = {}) {
    this.options = options;
    this.workspace = options.workspace;
    this.json = options.json ?? false;
    this.quiet = options.quiet ?? false;
    this.verbose = options.verbose ?? false;
    this.out = options.out ?? process.stdout;
    this.err = options.err ?? process.stderr;
    this.env = options.env ?? {};
    this.cwd = options.cwd;
    this.secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
    this.actions = isGitHubActions(this.env);
    this.color = Boolean(this.err.isTTY) && !('NO_COLOR' in this.env) && pc.isColorSupported;
    // A workspace's reporter shares the run's masks, already written.
    if (this.actions && this.workspace === undefined) for (const s of this.secrets) this.command(addMask(s), false);
  }

  /** A reporter for one workspace of a project with several, on the same streams ({@link ReporterOptions.workspace}). */
  forWorkspace(key: string, tagLines: boolean): Reporter {
    return new Reporter({ ...this.options, workspace: key, tagLines });
  }

  /** Each line of a text with the workspace's `[<key>] ` before it, when this reporter tags its lines. */
  private tagged(text: string): string {
    return this.workspace === undefined || !this.options.tagLines ? text : text.replace(/^/gm, `[${this.workspace}] `);
  }

  /** Masks every configured secret in a text. */
  mask(text: string): string {
    return this.secrets.reduce((t, s) => t.split(s).join('***'), text);
  }

  /**
   * Text as it may be written: secrets masked, control characters escaped, and in GitHub
   * Actions no line readable as a workflow command.
   */
  safe(text: string): string {
    const t = escapeControl(this.mask(text));
    return this.actions ? neutralizeCommands(t) : t;
  }

  /** Writes a workflow command where the runner reads it without breaking `--json` stdout. */
  private command(line: string, mask = true): void {
    // One line: a line break in it would let what follows be read as a line of its own.
    const one = escapeBidi(line.replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
    (this.json ? this.err : this.out).write(`${mask ? this.mask(one) : one}\n`);
  }

  /**
   * Writes workflow commands the tool made (e.g. `annotation(...)` lines, whose data is
   * escaped there), on stdout, or stderr with `--json`. Each is written as one line.
   */
  workflowCommands(lines: readonly string[]): void {
    for (const line of lines) this.command(line);
  }

  /** A progress or status line on stderr (suppressed by `--quiet`). */
  info(message: string): void {
    if (!this.quiet) this.err.write(`${this.tagged(this.safe(message))}\n`);
  }

  /** A detail line on stderr, only with `--verbose`. */
  debug(message: string): void {
    if (this.verbose) this.err.write(`${this.tagged(this.safe(message))}\n`);
  }

  /** A warning on stderr (shown even with `--quiet`). */
  warn(message: string): void {
    this.err.write(`${this.tagged(`${this.color ? pc.yellow('warning:') : 'warning:'} ${this.safe(message)}`)}\n`);
  }

  /** An error line on stderr. */
  error(message: string): void {
    const m = this.safe(message);
    this.err.write(`${this.tagged(this.color ? m.replace(/^error( E_[A-Z_]+)?:/, (x) => pc.red(x)) : m)}\n`);
  }

  /** A problem in a file: a line on stderr and, in Actions, an annotation on the file. */
  problem(p: FileProblem): void {
    const where = `${p.file}${p.line ? `:${p.line}` : ''}`;
    const text = p.message.startsWith(p.file) ? p.message : `${where}: ${p.message}`;
    if (p.level === 'warning') this.warn(text);
    else this.error(`error: ${text}`); // error() colours the prefix, after escaping the text
    if (this.actions) this.command(annotation(p.level ?? 'error', this.mask(p.message), { file: p.file, line: p.line }));
  }

  /**
   * In GitHub Actions, the failure that stopped the command: its `::error` annotation and job
   * summary section, once per run (one the command showed itself is not shown again).
   */
  failure(annotationLine: string, summaryMarkdown: string): void {
    if (!this.actions || this.failureShown) return;
    this.failureShown = true;
    this.command(annotationLine);
    this.summary(summaryMarkdown);
  }

  /** Appends Markdown to the Actions job summary (no-op elsewhere). */
  summary(markdown: string): void {
    if (this.actions) appendJobSummary(escapeBidi(this.mask(markdown)), this.env);
  }

  /**
   * A `(done, total)` callback for work whose total is known once it starts; `stop` at the end;
   * `line` prints about the work (at --verbose while the bar shows). A bar (cli-progress) shows on
   * stderr once the work has lasted a second since the first call: only on a TTY, never in CI
   * logs, never with `--quiet` or `--json`, so quick runs print no bar at all.
   */
  counter(label: string): Counter {
    const enabled = Boolean(this.err.isTTY) && !this.quiet && !this.json && !this.env.CI && !this.actions;
    let bar: cliProgress.SingleBar | undefined;
    let started: number | undefined;
    return {
      update: (done, total) => {
        started ??= Date.now();
        if (!enabled) return;
        if (!bar && Date.now() - started >= SHOW_BAR_AFTER_MS) {
          bar = new cliProgress.SingleBar(
            { stream: this.err, format: `${label} [{bar}] {value}/{total} {eta_formatted}`, hideCursor: true, clearOnComplete: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, done);
        }
        bar?.update(done);
      },
      stop: () => {
        bar?.stop();
        bar = undefined;
      },
      // A line about the work (a batch done): while the bar shows the progress, it goes to --verbose.
      line: (message) => (bar ? this.debug(message) : this.info(message)),
    };
  }

  /** The command's result: `human` text, or `data` as one JSON document with `--json`. */
  result(human: string, data: unknown): void {
    if (this.json && this.workspace !== undefined) this.kept = data;
    else if (this.json) {
      // JSON.stringify escapes control characters; `##[` is written `##\u005b`, the same JSON.
      const json = escapeBidi(this.mask(JSON.stringify(data, null, 2)));
      this.out.write(`${this.actions ? neutralizeJsonCommands(json) : json}\n`);
    } else if (human) this.out.write(`${this.tagged(this.safe(human))}\n`);
  }
}
