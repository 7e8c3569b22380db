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
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
console.log(`machine: ${machine}`);
await mkdir(join(here, 'results'), { recursive: true });
let failed = false;
for (const file of files) {
  const scenario = await import(join(here, 'scenarios', file));
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
