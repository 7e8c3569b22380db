// dev's startup report of the content's problems, called directly (cli/commands/dev.ts): each
// problem at the severity check gives it, so a tag a letter away from another local tag is
// a warning, as on save and in `check`, not an error; and its check on save, which never
// rejects. (The real `dev` process, its live reload and its rebuilds: test/e2e/site/dev-live-reload.test.ts.)
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportPageProblems, reportSaved } from '../../../src/cli/commands/dev.js';
import { pageProblems } from '../../../src/site/dev/entry-watch.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { captureReporter } from '../../helpers/process/reporter.js';

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

describe("dev's check on save never rejects", () => {
  let dir: string;
  useTempDir((d) => (dir = d));

  it('a file removed between the watcher\'s event and the read is reported as removed, and the check resolves', async () => {
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-11-01-kept.md'), entry('Kept', []));
    const lines: string[] = [];
    const reporter = { info: (m: string) => lines.push(`info: ${m}`), problem: (p: { file: string; message: string }) => lines.push(`problem: ${p.file}: ${p.message}`) };
    await expect(reportSaved(join(dir, 'content'), 'entries/2026-11-02-gone.md', reporter, (rel) => `content/${rel}`)).resolves.toBeUndefined();
    expect(lines).toEqual(['info: removed: content/entries/2026-11-02-gone.md']);
    // A content directory that is gone altogether (a checkout of another branch): still resolves, and says so.
    lines.length = 0;
    await expect(reportSaved(join(dir, 'nowhere'), 'entries/x.md', reporter, (rel) => rel)).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
  });
});
