/**
 * Exit codes of the CLI, documented in the README ("Exit codes"). Scripts and the
 * scheduled workflow match on them.
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
  /** Some local files (or CSV rows) are invalid and were not sent (each reported with file, field and fix). */
  INVALID: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The ranking of exit codes, most serious first (README): invalid input (5), an error (1; usage,
 * 2, ends a command before any outcome), conflicts (3), work deferred (4), ok (0).
 */
const RANKING: readonly ExitCode[] = [EXIT.INVALID, EXIT.ERROR, EXIT.USAGE, EXIT.CONFLICT, EXIT.DEFERRED, EXIT.OK];

/** The most serious of several exit codes ({@link RANKING}), as every command combining outcomes reports; {@link EXIT.OK} for none. */
export function worstExit(codes: readonly ExitCode[]): ExitCode {
  return RANKING.find((c) => codes.includes(c)) ?? EXIT.OK;
}
