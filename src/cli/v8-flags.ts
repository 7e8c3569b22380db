/**
 * V8's optimising compiler (TurboFan) tuned for a build, which lives seconds: set by the
 * command line's `build` (cli.ts) before the build's modules load; its threads share the flags.
 *
 * A cold build of 1,000 entries spent a quarter of its CPU time (`perf record`: 24%, 2.4 s
 * on this 2-core machine) in TurboFan's background compile jobs, in two isolates (the build's
 * thread and Eleventy's), for code that ran a few hundred times and was then done. Two flags
 * make V8 optimise only what stays hot:
 *
 * - `--interrupt-budget` 8 times V8 11's default (67,584 bytes of bytecode run before a
 *   function is considered for optimisation);
 * - `--no-turbo-inlining`: an optimised function does not compile its callees into itself.
 *
 * Weighed in docs/benchmarks.md ("The speed machinery, weighed"). Not for `pull`: its
 * conversion threads run the same code 10,000 times, and a cold pull of 10,000 entries took
 * 1.08 times as long with them. The library (`index.ts`) sets nothing: the process is its
 * caller's.
 *
 * @module
 */
import { setFlagsFromString } from 'node:v8';

/** V8 11's default `--interrupt-budget` (Node 20), bytes of bytecode. */
const DEFAULT_INTERRUPT_BUDGET = 67_584;

/** The flags set, unless the process was started with a flag of its own for the same setting. */
export const COMMAND_V8_FLAGS: readonly string[] = [`--interrupt-budget=${8 * DEFAULT_INTERRUPT_BUDGET}`, '--no-turbo-inlining'];

/**
 * The flags of {@link COMMAND_V8_FLAGS} to set in a process started with `execArgv` and
 * `nodeOptions` (`NODE_OPTIONS`): those whose setting neither names (`--turbo-inlining`,
 * `--no-turbo-inlining`, `--interrupt-budget=...`, with `-` or `_`), so that a flag given on
 * purpose stays as given.
 */
export function flagsToSet(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map((arg) => arg.replace(/_/g, '-').replace(/^--no-/, '--').split('=')[0]!);
  return COMMAND_V8_FLAGS.filter((flag) => !given.includes(flag.replace(/^--no-/, '--').split('=')[0]!));
}

/**
 * Sets {@link COMMAND_V8_FLAGS} in this process (those {@link flagsToSet} leaves), for the code
 * that runs from now on: V8 reads them as functions run, in every thread.
 * @returns the flags set.
 */
export function setCommandV8Flags(): string[] {
  const flags = flagsToSet(process.execArgv, process.env.NODE_OPTIONS);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
