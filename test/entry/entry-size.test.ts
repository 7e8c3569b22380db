// An entry too large to convert: pull reports it by name and mirrors the
// others (the pull command in the test's process as the CLI runs it,
// helpers/process/command.ts, against the emulator over HTTP).
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import { MAX_CONVERTED_CONTENT_MB, remoteContentToMarkdown } from '../../src/convert/html-to-markdown.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { useTempDir } from '../helpers/process/cli.js';
import { runCommand } from '../helpers/process/command.js';
import { useEmulatorFixture } from '../helpers/service/emulator.js';
import { bigHtml, expectOversizedEntryReported, LIMIT, seedOversizedEntry } from '../helpers/sync/oversized-entry.js';

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

  for (const small of [2]) {
    it(`names it, exits 1 and mirrors the ${small} others`, async () => {
      seedOversizedEntry(emulator.fx, small);
      const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env: emulator.env, json: true });
      await expectOversizedEntryReported(r, dir, small);
    }, 120_000);
  }
});
