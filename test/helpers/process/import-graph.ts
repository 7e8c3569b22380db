// The compiled modules a module of dist/ loads: its relative imports, followed through the
// files, as the paths relative to dist/ (`cli/commands/sync.js`).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/, which `npm run build` writes and the tests that read compiled code need. */
const DIST = fileURLToPath(new URL('../../../dist', import.meta.url));

/**
 * The modules of dist/ that `entry` (a path relative to dist/) loads, itself included.
 * @param dynamic also follow `import('./...')`: what the module can load, not only what
 *   loading it loads.
 */
export function distModules(entry: string, options: { dynamic: boolean }): string[] {
  const pattern = options.dynamic ? /(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g : /(?:from\s+|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(pattern)) visit(resolve(dirname(file), m[1]!));
  };
  visit(join(DIST, entry));
  return [...seen].map((f) => relative(DIST, f).split('\\').join('/'));
}
