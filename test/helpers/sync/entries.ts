// Shared by the push tests (test/sync/push/push*.test.ts, test/cli/commands/push*.test.ts, test/e2e/): entry
// files in a temporary content directory, checks that every file maps to exactly one
// remote entry, and of a stopped push's report.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import type { EmulatorOptions, RequestLogRecord } from '../../../src/emulator/server.js';
import type { EmulatorStore, EmulatorWorkspace } from '../../../src/emulator/store.js';
import { tempDir, type CliResult } from '../process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../service/emulator.js';

/** An emulator with one workspace, and a temporary project for push. */
export interface PushSetup {
  fx: EmulatorFixture;
  contentDir: string;
  stateDir: string;
  /** The POSTs the emulator saw. */
  posts(): RequestLogRecord[];
  /** The `GET /api/entries` it saw. */
  lists(): RequestLogRecord[];
  close(): Promise<void>;
}

/** Starts the emulator and makes `content/` and `.changelog/` paths in a temporary directory. */
export async function pushSetup(options: EmulatorOptions = {}): Promise<PushSetup> {
  const fx = await emulatorFixture(options);
  const { dir, cleanup } = await tempDir();
  return {
    fx,
    contentDir: join(dir, 'content'),
    stateDir: join(dir, '.changelog'),
    posts: () => fx.emu.log.filter((r) => r.method === 'POST'),
    lists: () => fx.emu.log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/entries')),
    async close() {
      await fx.close();
      await cleanup();
    },
  };
}

/** Writes `entries/<name>.md`. */
export async function writeEntry(contentDir: string, name: string, text: string): Promise<string> {
  await mkdir(join(contentDir, 'entries'), { recursive: true });
  await writeFile(join(contentDir, 'entries', `${name}.md`), text);
  return `entries/${name}.md`;
}

/** `n` new entry files `e01..`, dated one day apart from 2026-01-01; returns their texts by path. */
export async function writeEntries(contentDir: string, n: number): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (let i = 1; i <= n; i++) {
    const day = new Date(Date.UTC(2026, 0, i)).toISOString().slice(0, 10);
    const text = `---\ntitle: "Entry ${i}: things"\npublish_at: ${day}\nis_published: true\ntags: [API]\nteam_note: keep me\n---\n\nBody of **entry ${i}**.\n\n- a\n- b\n`;
    texts.set(await writeEntry(contentDir, `${day}-entry-${i}`, text), text);
  }
  return texts;
}

/**
 * Every file is on the service exactly once: as many remote entries as files, no title
 * and date twice, each file's identifier the one of the remote entry with its slug and title, and
 * the file byte-identical to its original but for added `slug`/`status`/`identifier` lines.
 */
export async function expectEachOnceAndIntact(fx: { store: EmulatorStore; ws: EmulatorWorkspace }, contentDir: string, originals: Map<string, string>): Promise<void> {
  const remote = fx.store.listEntries(fx.ws);
  const keys = remote.map((e) => `${e.title} @ ${e.publish_at.slice(0, 10)}`);
  expect(new Set(keys).size, `duplicates: ${keys.sort().join(' | ')}`).toBe(keys.length);
  expect(remote).toHaveLength(originals.size);
  for (const [rel, original] of originals) {
    const text = await readFile(join(contentDir, rel), 'utf8');
    const parsed = parseEntryFile(rel, text);
    const mine = remote.find((e) => e.slug === parsed.data.slug);
    expect(mine, `${rel}: no remote entry with slug ${parsed.data.slug}`).toBeDefined();
    expect(parsed.data.identifier).toBe(mine!.identifier);
    expect(mine!.title).toBe(parsed.data.title);
    expect(withoutAddedLines(text, original)).toBe(original);
  }
}

/**
 * Checks the `--json` report of a push stopped at the write-back of `file` (the real CLI):
 * exit 1, and that file alone pending, created on the service as `identifier` but its
 * identifier not written to the file, the failure (`<step> failed: <error>`) named in the
 * reason with the fix.
 */
export function expectNotWrittenBack(r: CliResult, file: string, identifier: string, failure: string): void {
  expect(r.code).toBe(1);
  const doc = JSON.parse(r.stdout) as { pending: Array<{ file: string; reason: string; identifier?: string }> };
  expect(doc.pending).toEqual([
    expect.objectContaining({
      file,
      identifier,
      reason: `created on the service as ${identifier}, but the identifier could not be written to the file (${file}: ${failure}); fix the file and push again: it writes the identifier and sends nothing`,
    }),
  ]);
}

/** The text without the frontmatter lines push adds (only those not in the original). */
export function withoutAddedLines(text: string, original: string): string {
  const had = new Set(original.split('\n'));
  const lines = text.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && l === '---');
  return lines.filter((l, i) => !(i < close && /^(slug|status|identifier):/.test(l) && !had.has(l))).join('\n');
}

/** The files of the entries directory. */
export async function entryNames(contentDir: string): Promise<string[]> {
  return (await readdir(join(contentDir, 'entries'))).sort();
}
