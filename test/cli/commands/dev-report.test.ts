// dev's startup report of the content's problems, called directly (commands/dev.ts): each
// problem at the severity check gives it, so a tag a letter away from another local tag is
// a warning, as on save and in `check`, not an error.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportPageProblems } from '../../../src/cli/commands/dev.js';
import { pageProblems } from '../../../src/site/dev/entry-watch.js';
import { useTempDir } from '../../helpers/cli.js';
import { captureReporter } from '../../helpers/reporter.js';

const entry = (title: string, tags: string[], body = 'Text.') =>
  `---\ntitle: ${JSON.stringify(title)}\npublish_at: 2026-11-01\nis_published: true\ntags: ${JSON.stringify(tags)}\n---\n\n${body}\n`;

describe("dev's startup problem report", () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('prints a near-miss local tag as a warning and an empty body as an error', async () => {
    const content = join(dir, 'content');
    await mkdir(join(content, 'entries'), { recursive: true });
    await writeFile(join(content, 'entries/2026-11-01-a.md'), entry('A', ['Reporting']));
    await writeFile(join(content, 'entries/2026-11-02-b.md'), entry('B', ['Reportng']));
    await writeFile(join(content, 'entries/2026-11-03-c.md'), entry('C', [], ''));
    const problems = await pageProblems(content);
    expect(problems.map((p) => [p.kind, p.severity])).toEqual(expect.arrayContaining([['tag', 'warning'], ['content', 'error']]));

    const { reporter, err } = captureReporter();
    reportPageProblems(problems, reporter, (rel) => `content/${rel}`);
    const lines = err().trim().split('\n');
    expect(lines.filter((l) => l.startsWith('warning: content/entries/2026-11-0') && l.includes('Reportng'))).toHaveLength(lines.filter((l) => l.includes('Reportng')).length);
    expect(lines.some((l) => l.includes('Reportng'))).toBe(true);
    expect(lines.some((l) => l.startsWith('error: content/entries/2026-11-03-c.md') && l.includes('the body is empty'))).toBe(true);
  });
});
