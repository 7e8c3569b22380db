/**
 * V8's optimising compiler (TurboFan) tuned for a build, which lives seconds: set by the
 * command line's `build` (cli.ts) before the build's modules load; its threads share the flags.
 *
 * A cold build of 1,000 entries spent a large share of its CPU time (`perf record`) in
 * TurboFan's background compile jobs, in two isolates (the build's
 * thread and Eleventy's), for code that ran a few hundred times and was then done. Two flags
 * make V8 optimise only what stays hot:
 *
 * - how much a function must run before TurboFan compiles it, 8 times V8's default;
 * - `--no-turbo-inlining`: an optimised function does not compile its callees into itself.
 *
 * Which flags, and their names, depend on the V8 version ({@link commandV8Flags}): V8 does not
 * set a flag it does not know, and prints "Error: unrecognized flag" into the build's log.
 *
 * Only for a build of fewer than {@link LARGE_BUILD_ENTRIES} entry files. A large build's
 * data stage runs the same code (the frontmatter's YAML, marked, sanitize-html) for every
 * entry, on its critical path: at 10,000 entries the flags made reading and parsing the files
 * and the whole build longer, as they did a cold pull of 10,000 entries, which never sets them.
 * Weighed in docs/benchmarks.md ("The speed machinery, weighed"). The library (`index.ts`)
 * sets nothing: the process is its caller's.
 *
 * @module
 */
import { setFlagsFromString } from 'node:v8';

/**
 * From this many entry files on, a build keeps V8's own settings: cold builds at `/` with
 * the flags against without (docs/benchmarks.md) gained at 1,000 entries, nothing from
 * 3,000 to 5,000, and lost at 10,000.
 */
export const LARGE_BUILD_ENTRIES = 5_000;

/** V8 11's default `--interrupt-budget` (Node 20), bytes of bytecode run. */
const DEFAULT_INTERRUPT_BUDGET = 67_584;

/** V8 12 and 13's default `--invocation-count-for-turbofan` (Node 22 and 24). */
const DEFAULT_TURBOFAN_INVOCATIONS = 3_000;

/** V8 13's default `--invocation-count-for-maglev` (Node 24). */
const DEFAULT_MAGLEV_INVOCATIONS = 400;

/**
 * The flags for a V8 version (`process.versions.v8`), each one that V8 knows, as measured
 * with cold builds of 1,000 entries, alternated with none (docs/benchmarks.md, "The speed
 * machinery, weighed"):
 *
 * - V8 11 (Node 20): `--interrupt-budget` 8 times its default, `--no-turbo-inlining`;
 * - V8 12 (Node 22), which has no `--interrupt-budget` and counts calls instead:
 *   `--invocation-count-for-turbofan` 8 times its default, `--no-turbo-inlining`;
 * - V8 13 (Node 24), which compiles hot code with Maglev before TurboFan: the same, and
 *   `--invocation-count-for-maglev` 8 times its default;
 * - any other V8: none. A V8 not measured keeps its own settings, and never sees a flag it
 *   may not know.
 */
export function commandV8Flags(v8Version: string = process.versions.v8): readonly string[] {
  const major = Number(v8Version.split('.')[0]);
  const turbofan = `--invocation-count-for-turbofan=${8 * DEFAULT_TURBOFAN_INVOCATIONS}`;
  if (major === 11) return [`--interrupt-budget=${8 * DEFAULT_INTERRUPT_BUDGET}`, '--no-turbo-inlining'];
  if (major === 12) return [turbofan, '--no-turbo-inlining'];
  if (major === 13) return [turbofan, `--invocation-count-for-maglev=${8 * DEFAULT_MAGLEV_INVOCATIONS}`, '--no-turbo-inlining'];
  return [];
}

/**
 * The flags of `flags` to set in a process started with `execArgv` and `nodeOptions`
 * (`NODE_OPTIONS`): those whose setting neither names (`--turbo-inlining` or
 * `--no-turbo-inlining`, `--invocation-count-for-turbofan=...`, with `-` or `_`), so that a
 * flag given on purpose stays as given.
 * @param flags the flags wanted (default: this V8's, {@link commandV8Flags}).
 */
export function flagsToSet(execArgv: readonly string[], nodeOptions = '', flags: readonly string[] = commandV8Flags()): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map((arg) => arg.replace(/_/g, '-').replace(/^--no-/, '--').split('=')[0]!);
  return flags.filter((flag) => !given.includes(flag.replace(/^--no-/, '--').split('=')[0]!));
}

/**
 * Sets this V8's flags ({@link commandV8Flags}) in this process (those {@link flagsToSet} leaves) for a build
 * of a content directory of fewer than {@link LARGE_BUILD_ENTRIES} entry files, for the code
 * that runs from now on: V8 reads them as functions run, in every thread. The entry files are
 * counted as the build lists them (`listEntryFiles`; none when the folder is missing, which
 * the build reports); the entry format's module is loaded here, before its code runs, since
 * the build loads it anyway.
 * @returns the flags set (none for a large build).
 */
export async function setBuildV8Flags(contentDir: string): Promise<string[]> {
  const { listEntryFiles } = await import('../entry/entry-files.js');
  const files = await listEntryFiles(contentDir).catch(() => []);
  if (files.length >= LARGE_BUILD_ENTRIES) return [];
  const flags = flagsToSet(process.execArgv, process.env.NODE_OPTIONS);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
