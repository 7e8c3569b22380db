// Temporary files of atomic writes a killed run left: pull and push (the
// commands, run in the test's process as the CLI runs them, helpers/process/command.ts) remove them
// in every folder the tool writes, and only them. The leftovers are named exactly as the
// tool's one writer (core/atomic-file.ts) names its temporary files: `.<name>.<pid>.<n>.tmp`,
// here of a process that no longer runs.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { runCommand } from '../../helpers/process/command.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { useEmulatorFixture } from '../../helpers/service/emulator.js';

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 99_999_999;

describe('leftover temporary files', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  const emulator = useEmulatorFixture();
  beforeAll(() => {
    emulator.fx.store.insertEntry(emulator.fx.ws, { title: 'Dark mode', slug: 'dark-mode', publish_at: '2026-01-02', content: '<p>Dark.</p>' });
  });

  /** Leftovers of the tool's writes, relative to the project, and a writer's files that look alike. */
  async function plant(): Promise<{ ours: string[]; writers: string[] }> {
    await mkdir(join(dir, '.changelog/conflicts'), { recursive: true });
    await mkdir(join(dir, 'content/notes'), { recursive: true });
    let n = 100;
    const temp = (rel: string) => `${dirname(rel)}/.${basename(rel)}.${DEAD_PID}.${++n}.tmp`;
    const ours = [
      temp('content/_data/workspace.json'),
      temp('content/_data/tags.json'),
      temp('content/entries/2026-01-02-dark-mode.md'),
      temp('content/entries/2026-03-01-written-by-new.md'),
      temp('.changelog/state.json'),
      temp('.changelog/journal.json'),
      temp('.changelog/budget.json'),
      temp('.changelog/lock.json'),
      `.changelog/conflicts/.0b1c2d3e-1111-2222-3333-444455556666.md.${DEAD_PID}.3.tmp`,
      `content/_data/.tags.json.${DEAD_PID}.1.tmp`,
      `content/entries/.2026-01-02-dark-mode.md.${DEAD_PID}.2.tmp`,
    ];
    const writers = [
      'content/_data/team.json.2024', // a writer's own data file: not a file the tool writes
      'content/_data/workspace.json.bak',
      'content/entries/notes.txt.12345',
      'content/notes/workspace.json.12345', // a folder the tool does not write
      `content/entries/.2026-01-02-dark-mode.md.${process.pid}.9.tmp`, // a running process's write
    ];
    for (const rel of [...ours, ...writers]) {
      expect(ours.filter((o) => o === rel).length + writers.filter((w) => w === rel).length, rel).toBe(1);
      await writeFile(join(dir, rel), 'half a fi');
    }
    return { ours, writers };
  }

  const left = (rels: string[]) => rels.filter((rel) => existsSync(join(dir, rel)));

  it('pull removes them in content/entries, content/_data, .changelog and .changelog/conflicts, and names them', async () => {

    const { env } = emulator;
    const first = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const { ours, writers } = await plant();
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env, json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(left(ours)).toEqual([]);
    expect(left(writers)).toEqual(writers);
    const writes = (JSON.parse(r.stdout) as { writes: string[] }).writes;
    for (const rel of ours) {
      const reported = rel.startsWith('.changelog/') ? `state:${rel.slice('.changelog/'.length)}` : rel.slice('content/'.length);
      expect(writes).toContain(reported);
    }
  });

  it('push removes them too, and says so', async () => {

    const { env } = emulator;
    const { ours, writers } = await plant();
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(left(ours)).toEqual([]);
    expect(left(writers)).toEqual(writers);
    expect(r.stdout + r.stderr).toContain(`removed ${ours.length} temporary file(s) left by an interrupted write`);
    // Nothing else appeared or went: the mirror holds its one entry file.
    expect((await readdir(join(dir, 'content/entries'))).filter((n) => n.endsWith('.md'))).toEqual(['2026-01-02-dark-mode.md']);
  });
});
