// `npm test` is self-contained: on a fresh clone there is no ../shared beside the
// repository, so no test that `npm test` runs, nor any module such a test imports, reads it.
// Real changelog text comes from test/fixtures/corpus (with its LICENSE); the whole corpus is
// the corpus suite's (vitest.corpus.config.ts). `.ci/run` proves it by running `npm test` in
// a clone without ../shared; this finds the offender by name, in a second.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** This file, which names the folder to look for it. */
const SELF = fileURLToPath(import.meta.url);
/** A path into the workspace's shared folder, however it is spelled. */
const SHARED = /\.\.\/shared\b|\bshared\/corpus\b/;

/** The test files `npm test` runs: vitest.config.ts's include, minus its exclude (folders). */
function npmTestFiles(): string[] {
  const excluded = (config.test?.exclude ?? []).map((g) => g.replace(/\/\*\*$/, '/'));
  return readdirSync(join(ROOT, 'test'), { recursive: true })
    .map((f) => `test/${String(f)}`)
    .filter((f) => f.endsWith('.test.ts') && !excluded.some((e) => f.startsWith(e)));
}

/** The project's own modules a file imports (relative specifiers, `.js` read as the `.ts` source). */
function localImports(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs
    .map((s) => resolve(dirname(file), s))
    .map((p) => (p.endsWith('.js') && existsSync(p.replace(/\.js$/, '.ts')) ? p.replace(/\.js$/, '.ts') : p))
    .filter((p) => /\.(ts|mjs|js)$/.test(p) && existsSync(p) && !p.includes('/node_modules/'));
}

describe('npm test on a fresh clone', () => {
  it('reads nothing from ../shared: no test it runs, and no module those import, names it', () => {
    const tests = npmTestFiles();
    expect(tests.length).toBeGreaterThan(50);
    const seen = new Set<string>();
    const offenders: string[] = [];
    const queue = tests.map((t) => join(ROOT, t));
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      if (SHARED.test(text) && file !== SELF) offenders.push(relative(ROOT, file));
      queue.push(...localImports(file, text));
    }
    expect(seen.size).toBeGreaterThan(tests.length);
    expect(offenders).toEqual([]);
  });

  it('keeps its real changelog text inside the repository, with the licence it comes under', () => {
    const dir = join(ROOT, 'test/fixtures/corpus');
    expect(readFileSync(join(dir, 'box-developer-changelog/LICENSE'), 'utf8')).toContain('Apache License');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('Apache License 2.0');
  });
});
