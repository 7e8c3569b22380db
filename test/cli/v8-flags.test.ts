// The V8 flags the command line sets for itself (cli/v8-flags.ts): a flag given on purpose
// (on the command line or in NODE_OPTIONS) stays as given, and this Node knows every flag
// set (V8 prints an error for an unknown one, which a Node upgrade that renamed it would show).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_V8_FLAGS, entryFileCount, flagsToSet, LARGE_BUILD_ENTRIES } from '../../src/cli/v8-flags.js';

const ROOT = join(import.meta.dirname, '../..');

describe('flagsToSet', () => {
  it('sets every flag when the process was started without one of its own', () => {
    expect(flagsToSet([], '')).toEqual(COMMAND_V8_FLAGS);
    expect(flagsToSet(['--max-old-space-size=4096'], '--enable-source-maps')).toEqual(COMMAND_V8_FLAGS);
  });

  it('leaves a setting given on the command line or in NODE_OPTIONS, in any spelling', () => {
    expect(flagsToSet(['--interrupt-budget=1000'])).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet([], '--enable-source-maps --interrupt_budget=1000')).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet(['--turbo-inlining'])).toEqual([COMMAND_V8_FLAGS[0]]);
    expect(flagsToSet([], '--no-turbo_inlining')).toEqual([COMMAND_V8_FLAGS[0]]);
    expect(flagsToSet(['--turbo-inlining', '--interrupt-budget=5'])).toEqual([]);
  });

  it('names flags this Node knows: setting them prints nothing', () => {
    const run = setInChild(LARGE_BUILD_ENTRIES - 1);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(COMMAND_V8_FLAGS);
  });

  it('sets nothing for a build of a large mirror, whose hot code they would slow', () => {
    const run = setInChild(LARGE_BUILD_ENTRIES);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });
});

/** `setCommandV8Flags(entries)` in a process of its own (flags set stay set), and what it returned. */
function setInChild(entries: number) {
  const script = `import(${JSON.stringify(join(ROOT, 'dist/cli/v8-flags.js'))}).then((m) => console.log(JSON.stringify(m.setCommandV8Flags(${entries}))))`;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
}

describe('entryFileCount', () => {
  it("counts the entry files of a content directory's entries/, and 0 when there is none", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cs-count-'));
    try {
      expect(entryFileCount(dir)).toBe(0);
      await mkdir(join(dir, 'entries/drafts'), { recursive: true });
      await Promise.all(['a.md', 'b.md', 'notes.txt', '.c.md.tmp'].map((name) => writeFile(join(dir, 'entries', name), '')));
      expect(entryFileCount(dir)).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
