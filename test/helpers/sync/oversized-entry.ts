// An entry too large to convert among small ones, and what a pull of them
// must report (test/entry/entry-size.test.ts).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { MAX_CONVERTED_CONTENT_MB } from '../../../src/convert/html-to-markdown.js';
import type { CliResult } from '../process/cli.js';
import type { EmulatorFixture } from '../service/emulator.js';

/** The conversion limit, in bytes of HTML. */
export const LIMIT = MAX_CONVERTED_CONTENT_MB * 2 ** 20;

/** A paragraph of HTML `chars` characters long. */
export const bigHtml = (chars: number): string => `<p>${'x'.repeat(chars - 7)}</p>`;

/**
 * Empties the fixture's workspace, then adds `small` small entries (2026-01-05, `small-<i>`)
 * and one whose HTML is 1 KB over the limit ("Huge", 2026-01-06).
 */
export function seedOversizedEntry(fx: EmulatorFixture, small: number): void {
  for (const e of fx.store.listEntries(fx.ws)) fx.store.deleteEntry(fx.ws, e.identifier);
  for (let i = 0; i < small; i++) fx.store.insertEntry(fx.ws, { title: `Small ${i}`, slug: `small-${i}`, publish_at: '2026-01-05', content: `<p>Entry ${i}.</p>` });
  fx.store.insertEntry(fx.ws, { title: 'Huge', slug: 'huge', publish_at: '2026-01-06', content: bigHtml(LIMIT + 1024) });
}

/**
 * Checks a `--json` pull of {@link seedOversizedEntry}'s workspace into `dir`: exit 1, the
 * huge entry named as not converted with the reason, the `small` others created and written.
 */
export async function expectOversizedEntryReported(r: CliResult, dir: string, small: number): Promise<void> {
  expect(r.code, r.stderr).toBe(1);
  const result = JSON.parse(r.stdout) as { failed: Array<{ file: string; title: string; reason: string }>; created: unknown[] };
  expect(result.failed).toHaveLength(1);
  expect(result.failed[0]).toMatchObject({ file: 'entries/2026-01-06-huge.md', title: 'Huge' });
  expect(result.failed[0]!.reason).toMatch(/^its content is 8\.0 MB of HTML, more than the 8 MB/);
  expect(result.created).toHaveLength(small);
  const files = await readdir(join(dir, 'content/entries'));
  expect(files).toHaveLength(small);
  expect(files).not.toContain('2026-01-06-huge.md');
}
