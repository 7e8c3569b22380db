/**
 * Where commands speak: progress and logs on stderr, the result on stdout (human text by
 * default, one JSON document with `--json`).
 *
 * @module
 */

/** Options of {@link Reporter}. */
export interface ReporterOptions {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** Default process.stdout. */
  out?: NodeJS.WritableStream;
  /** Default process.stderr. */
  err?: NodeJS.WritableStream;
  /** Secrets to mask in everything written (the token). */
  secrets?: string[];
}

/** The output channel handed to every command. */
export class Reporter {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  private readonly out: NodeJS.WritableStream;
  private readonly err: NodeJS.WritableStream;
  private readonly secrets: string[];

  constructor(options: ReporterOptions = {}) {
    this.json = options.json ?? false;
    this.quiet = options.quiet ?? false;
    this.verbose = options.verbose ?? false;
    this.out = options.out ?? process.stdout;
    this.err = options.err ?? process.stderr;
    this.secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  }

  /** Masks every configured secret in a text. */
  mask(text: string): string {
    let t = text;
    for (const s of this.secrets) t = t.split(s).join('***');
    return t;
  }

  /** A progress or status line on stderr (suppressed by `--quiet`). */
  info(message: string): void {
    if (!this.quiet) this.err.write(`${this.mask(message)}\n`);
  }

  /** A detail line on stderr, only with `--verbose`. */
  debug(message: string): void {
    if (this.verbose) this.err.write(`${this.mask(message)}\n`);
  }

  /** A warning on stderr (shown even with `--quiet`). */
  warn(message: string): void {
    this.err.write(`warning: ${this.mask(message)}\n`);
  }

  /** An error line on stderr. */
  error(message: string): void {
    this.err.write(`${this.mask(message)}\n`);
  }

  /** The command's result: `human` text, or `data` as one JSON document with `--json`. */
  result(human: string, data: unknown): void {
    if (this.json) this.out.write(`${this.mask(JSON.stringify(data, null, 2))}\n`);
    else if (human) this.out.write(`${this.mask(human)}\n`);
  }
}
