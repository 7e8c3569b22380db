// An entry too large to convert (issue 12, item 7): pull reports it by name and mirrors the
// others, inline (the pull command in the test's process as the CLI runs it,
// helpers/command.ts, against the emulator over HTTP) and on the conversion threads (the real
// CLI: test/e2e/large-pull-on-worker-threads.test.ts).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import { MAX_CONVERTED_CONTENT_MB, remoteContentToMarkdown } from '../../src/convert/html-to-markdown.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { useTempDir } from '../helpers/cli.js';
import { runCommand } from '../helpers/command.js';
import { useEmulatorFixture } from '../helpers/emulator.js';

const LIMIT = MAX_CONVERTED_CONTENT_MB * 2 ** 20;
const bigHtml = (chars: number) => `<p>${'x'.repeat(chars - 7)}</p>`;

describe('the per-entry conversion limit', () => {
  it('refuses content over the limit before converting it, in either content form', () => {
    expect(() => remoteContentToMarkdown(bigHtml(LIMIT + 1))).toThrow(ChangelogSyncError);
    try {
      remoteContentToMarkdown({ blocks: [{ type: 'raw', data: { html: bigHtml(LIMIT + 1) } }] });
      expect.unreachable();
    } catch (err) {
      expect((err as ChangelogSyncError).code).toBe('E_ENTRY_TOO_LARGE');
      expect((err as Error).message).toContain(`more than the ${MAX_CONVERTED_CONTENT_MB} MB`);
    }
  });
});

describe('pull with one entry too large to convert', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });
  const emulator = useEmulatorFixture();

  // 3 entries run inline (the conversion threads start at 200 jobs: 260 entries on them, by the
  // real CLI, are test/e2e/large-pull-on-worker-threads.test.ts).
  for (const small of [2]) {
    it(`names it, exits 1 and mirrors the ${small} others (${small + 1 >= 200 ? 'threads' : 'inline'})`, async () => {
      const { fx, env } = emulator;
      for (const e of fx.store.listEntries(fx.ws)) fx.store.deleteEntry(fx.ws, e.identifier);
      for (let i = 0; i < small; i++) fx.store.insertEntry(fx.ws, { title: `Small ${i}`, slug: `small-${i}`, publish_at: '2026-01-05', content: `<p>Entry ${i}.</p>` });
      fx.store.insertEntry(fx.ws, { title: 'Huge', slug: 'huge', publish_at: '2026-01-06', content: bigHtml(LIMIT + 1024) });
      const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env, json: true });
      expect(r.code, r.stderr).toBe(1);
      const result = JSON.parse(r.stdout) as { failed: Array<{ file: string; title: string; reason: string }>; created: unknown[]; threads: number };
      expect(result.failed).toHaveLength(1);
      expect(result.failed[0]).toMatchObject({ file: 'entries/2026-01-06-huge.md', title: 'Huge' });
      expect(result.failed[0]!.reason).toMatch(/^its content is 8\.0 MB of HTML, more than the 8 MB/);
      expect(result.created).toHaveLength(small);
      expect(result.threads > 1).toBe(small >= 200);
      const files = await readdir(join(dir, 'content/entries'));
      expect(files).toHaveLength(small);
      expect(files).not.toContain('2026-01-06-huge.md');
    }, 120_000);
  }
});
