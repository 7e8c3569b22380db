// Links between the docs stay true (docs/development.md "Repository tests"): every link of
// README.md and docs/*.md to a page of the repository finds it, and its `#anchor` a heading
// there, as github.com renders them. A section renamed or removed breaks no link silently.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorOf, anchorsOf, withoutCode } from '../helpers/repo/doc-sections.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every page of docs/, as paths from the root. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort()];
}

/** A link's target, `[text](target)`, outside code: an external one (a scheme, `//`) is not ours. */
const LINK = /\]\(([^)\s]+)\)/g;
const isExternal = (target: string): boolean => /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target);

describe('links between the docs', () => {
  it('the anchors are the ones github.com gives', () => {
    expect(anchorOf('What an hourly run costs')).toBe('what-an-hourly-run-costs');
    expect(anchorOf('The "What\'s new" widget')).toBe('the-whats-new-widget');
    expect(anchorOf('`changelog-sync dev`, the preview')).toBe('changelog-sync-dev-the-preview');
    expect(anchorOf('Images (pull mirrors)')).toBe('images-pull-mirrors');
  });

  it('every link of README.md and docs/ to a page of the repository finds the page and its section', async () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of await pages()) {
      const text = withoutCode(await readFile(join(ROOT, page), 'utf8'));
      for (const m of text.matchAll(LINK)) {
        const target = m[1]!;
        if (isExternal(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
        checked++;
        if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor !== undefined && file.endsWith('.md') && !(await anchorsOf(file)).has(anchor)) broken.push(`${page}: ${target} (no such section in ${relative(ROOT, file)})`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});
