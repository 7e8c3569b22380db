#!/usr/bin/env node
// npm run bench [-- scenario...]: runs the benchmark scenarios in bench/scenarios/ (each a
// module exporting `name`, `description` and `run(): Promise<object>`), prints their
// figures and writes them to bench/results/<name>.json (ignored by git).
// Figures are reported in docs/benchmarks.md with the machine and the command.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = (await readdir(join(here, 'scenarios'))).filter((f) => f.endsWith('.mjs')).sort();
const scenarios = await Promise.all(files.map((f) => import(join(here, 'scenarios', f))));
// --help, or a name no scenario has: the usage, with every scenario's name and description.
const unknown = wanted.filter((w) => !scenarios.some((s) => s.name === w));
if (unknown.length > 0) {
  console.log(`${unknown.includes('--help') ? '' : `no scenario ${unknown.join(', ')}\n`}usage: npm run bench [-- <scenario>...]  (every scenario without one)
  options: BENCH_* environment variables, in each scenario's header (bench/scenarios/<name>.mjs)
  on a shared machine: flock /tmp/bench.lock npm run bench -- <scenario>
scenarios:
${scenarios.map((s) => `  ${s.name.padEnd(19)} ${s.description}`).join('\n')}`);
  process.exit(unknown.includes('--help') ? 0 : 2);
}
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
console.log(`machine: ${machine}`);
await mkdir(join(here, 'results'), { recursive: true });
let failed = false;
for (const scenario of scenarios) {
  if (wanted.length > 0 && !wanted.includes(scenario.name)) continue;
  console.log(`\n== ${scenario.name}: ${scenario.description}`);
  try {
    const figures = await scenario.run();
    console.log(JSON.stringify(figures, null, 2));
    await writeFile(join(here, 'results', `${scenario.name}.json`), `${JSON.stringify({ machine, at: new Date().toISOString(), figures }, null, 2)}\n`);
  } catch (err) {
    failed = true;
    console.error(`scenario ${scenario.name} failed:`, err);
  }
}
process.exitCode = failed ? 1 : 0;
