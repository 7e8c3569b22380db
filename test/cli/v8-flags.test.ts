// The V8 flags the command line sets for itself (cli/v8-flags.ts): named as each V8 names
// them, a flag given on purpose (on the command line or in NODE_OPTIONS) stays as given, and
// this Node knows every flag set (V8 prints an error for an unknown one: Node 22 and 24 have
// no --interrupt-budget, and the build printed "Error: unrecognized flag" there).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandV8Flags, flagsToSet, LARGE_BUILD_ENTRIES } from '../../src/cli/v8-flags.js';

const ROOT = join(import.meta.dirname, '../..');

describe('commandV8Flags', () => {
  it("names each setting as the V8 of Node 20, 22 and 24 does, and sets nothing on a V8 not measured", () => {
    // `process.versions.v8` of Node 20.20, 22.23 and 24.21.
    expect(commandV8Flags('11.3.244.8-node.38')).toEqual(['--interrupt-budget=540672', '--no-turbo-inlining']);
    expect(commandV8Flags('12.4.254.21-node.57')).toEqual(['--invocation-count-for-turbofan=24000', '--no-turbo-inlining']);
    expect(commandV8Flags('13.6.233.17-node.53')).toEqual(['--invocation-count-for-turbofan=24000', '--invocation-count-for-maglev=3200', '--no-turbo-inlining']);
    expect(commandV8Flags('14.1.146.11-node.14')).toEqual([]);
    expect(commandV8Flags('10.2.154.26-node.36')).toEqual([]);
    expect(commandV8Flags()).toEqual(commandV8Flags(process.versions.v8));
  });
});

describe('flagsToSet', () => {
  const node20 = commandV8Flags('11.3.244.8-node.38');
  const node22 = commandV8Flags('12.4.254.21-node.57');

  it('sets every flag when the process was started without one of its own', () => {
    expect(flagsToSet([], '')).toEqual(commandV8Flags());
    expect(flagsToSet(['--max-old-space-size=4096'], '--enable-source-maps', node22)).toEqual(node22);
  });

  it('leaves a setting given on the command line or in NODE_OPTIONS, in any spelling', () => {
    expect(flagsToSet(['--interrupt-budget=1000'], '', node20)).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet([], '--enable-source-maps --interrupt_budget=1000', node20)).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet(['--invocation-count-for-turbofan=10'], '', node22)).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet([], '--invocation_count_for_turbofan=10', node22)).toEqual(['--no-turbo-inlining']);
    expect(flagsToSet(['--turbo-inlining'], '', node22)).toEqual([node22[0]]);
    expect(flagsToSet([], '--no-turbo_inlining', node20)).toEqual([node20[0]]);
    expect(flagsToSet(['--turbo-inlining', '--interrupt-budget=5'], '', node20)).toEqual([]);
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
      expect(JSON.parse(first.stdout)).toEqual(commandV8Flags());
      await mkdir(join(dir, 'entries'));
      const names = Array.from({ length: LARGE_BUILD_ENTRIES - 1 }, (_, i) => `e${i}.md`);
      await Promise.all([...names, 'notes.txt', '.x.md.tmp'].map((name) => writeFile(join(dir, 'entries', name), '')));
      expect(flagsFor()).toEqual(commandV8Flags());
      await writeFile(join(dir, 'entries', 'last.md'), '');
      // A large mirror's build: nothing set, its hot code runs with V8's own settings.
      expect(flagsFor()).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
