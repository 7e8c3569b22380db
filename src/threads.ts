/**
 * Options of the worker threads changelog-sync starts (piscina pools for conversion and
 * rendering).
 *
 * @module
 */

/**
 * `execArgv` of every worker thread. piscina loads a task file with `require()` first and
 * falls back to `import()`; on Node 20.19+ `require()` of an ES module goes through
 * require(esm), which intermittently aborts the process with the native assertion
 * "facade->InstantiateModule(...)" in `ModuleWrap::CreateRequiredModuleFacade` (seen in CI
 * on Node 20.20.2). With require(esm) off in the workers, `require()` fails cleanly with
 * `ERR_REQUIRE_ESM` and piscina takes the `import()` path.
 */
export const WORKER_EXEC_ARGV: string[] = [...process.execArgv, '--no-experimental-require-module'];
