// The V8 flags the command line sets for itself (cli/v8-flags.ts): a flag given on purpose
// (on the command line or in NODE_OPTIONS) stays as given, and this Node knows every flag
// set (V8 prints an error for an unknown one, which a Node upgrade that renamed it would show).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_V8_FLAGS, flagsToSet, LARGE_BUILD_ENTRIES } from '../../src/cli/v8-flags.js';

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
});

/** `call` (on the compiled module `m`) in a process of its own, and what it resolved to. */
function runInChild(call: string) {
  const script = `import(${JSON.stringify(join(ROOT, 'dist/cli/v8-flags.js'))}).then(async (m) => console.log(JSON.stringify(await ${call})))`;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
}

describe('setBuildV8Flags', () => {
  it("counts the content directory's entry files as the build lists them: only *.md of entries/, none without the folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cs-count-'));
    const flagsFor = () => JSON.parse(runInChild(`m.setBuildV8Flags(${JSON.stringify(dir)})`).stdout) as string[];
    try {
      // Flags this Node knows: setting them prints nothing (V8 prints an error for an unknown one).
      const first = runInChild(`m.setBuildV8Flags(${JSON.stringify(dir)})`);
      expect(first.status).toBe(0);
      expect(first.stderr).toBe('');
      expect(JSON.parse(first.stdout)).toEqual(COMMAND_V8_FLAGS);
      await mkdir(join(dir, 'entries'));
      const names = Array.from({ length: LARGE_BUILD_ENTRIES - 1 }, (_, i) => `e${i}.md`);
      await Promise.all([...names, 'notes.txt', '.x.md.tmp'].map((name) => writeFile(join(dir, 'entries', name), '')));
      expect(flagsFor()).toEqual(COMMAND_V8_FLAGS);
      await writeFile(join(dir, 'entries', 'last.md'), '');
      // A large mirror's build: nothing set, its hot code runs with V8's own settings.
      expect(flagsFor()).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
