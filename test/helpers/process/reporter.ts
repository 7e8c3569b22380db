// A real Reporter writing into memory, for the unit tests of the commands' report functions.
import { Writable } from 'node:stream';
import { Reporter, type ReporterOptions } from '../../../src/cli/output/reporter.js';

/** A Reporter whose stdout and stderr are recorded; `env` defaults to an empty one (not GitHub Actions). */
export interface CapturedReporter {
  reporter: Reporter;
  /** What was written to stdout so far. */
  out: () => string;
  /** What was written to stderr so far. */
  err: () => string;
}

function recorder(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** A Reporter writing to memory (see {@link CapturedReporter}). */
export function captureReporter(options: Omit<ReporterOptions, 'out' | 'err'> = {}): CapturedReporter {
  const out = recorder();
  const err = recorder();
  return { reporter: new Reporter({ env: {}, ...options, out: out.stream, err: err.stream }), out: out.text, err: err.text };
}
