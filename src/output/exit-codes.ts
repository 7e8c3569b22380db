/**
 * Exit codes of the CLI, documented in the README. Scripts and the scheduled workflow
 * match on them.
 *
 * @module
 */
export const EXIT = {
  /** Everything done. */
  OK: 0,
  /** An error: nothing or only part was done (see the message). */
  ERROR: 1,
  /** Wrong command-line usage. */
  USAGE: 2,
  /** Pull found conflicts (local file kept, remote copy in `.changelog/conflicts/`). */
  CONFLICT: 3,
  /** Work deferred to the next run: the day's request budget is spent. */
  DEFERRED: 4,
  /** Some local files are invalid and were not sent (each reported with file, field and fix). */
  INVALID: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The most serious of several exit codes: error > invalid > conflict > deferred > ok. */
export function worstExit(codes: readonly ExitCode[]): ExitCode {
  for (const c of [EXIT.ERROR, EXIT.INVALID, EXIT.CONFLICT, EXIT.DEFERRED] as const) if (codes.includes(c)) return c;
  return EXIT.OK;
}
