// The codebase's shape (issue 15; docs/architecture.md "Conventions"): no source file over
// 400 lines, no two source files of the same name, and the README within its 15 KB budget
// (the rest lives in docs/). Lint, knip and the import-cycle check run in .ci/run.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 400;
const README_BYTES = 15 * 1024;

async function sourceFiles(): Promise<string[]> {
  const names = await readdir(join(ROOT, 'src'), { recursive: true });
  return names.filter((n) => n.endsWith('.ts')).sort();
}

describe('codebase shape', () => {
  it(`no file under src/ is over ${MAX_LINES} lines`, async () => {
    const files = await sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    const over: string[] = [];
    for (const f of files) {
      const lines = (await readFile(join(ROOT, 'src', f), 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) over.push(`${f}: ${lines}`);
    }
    expect(over).toEqual([]);
  });

  it('no two files under src/ share a name, but a command and the one module it calls', async () => {
    const byName = new Map<string, string[]>();
    for (const f of await sourceFiles()) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
    // `cli/commands/pull.ts` is the `pull` command over `sync/pull/pull.ts` (changesets' layout): a pair.
    const commandPair = (paths: string[]) => paths.length === 2 && paths.filter((p) => p.startsWith('cli/')).length === 1;
    const twice = [...byName.values()].filter((paths) => paths.length > 1 && !commandPair(paths));
    expect(twice).toEqual([]);
    expect([...byName.values()].filter(commandPair).length).toBeGreaterThan(0);
  });

  it('the README is at most 15 KB, and every docs/ page it links to exists', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(README_BYTES);
    const links = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(3);
    for (const link of new Set(links)) expect((await stat(join(ROOT, link))).isFile(), link).toBe(true);
  });
});
