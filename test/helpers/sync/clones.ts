// Several clones of one bare origin, each a changelog-sync project pointed at one emulator
// (test/e2e/sync/push-race, push-sigstop and sync-one-job; test/sync/push/push-fence.test.ts):
// what a team has when a writer's push and the scheduled job's sync run from two machines.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { spawnCli, type CliResult } from '../process/cli.js';

/** Runs git in `cwd` (identity and signing fixed), returning its stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Writer', '-c', 'user.email=writer@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });
}

/** One clone: a project directory whose `origin` is the shared bare repository. */
export interface Clone {
  dir: string;
  contentDir: string;
  /** Starts the real CLI in the clone (the environment of {@link makeClones} plus `env`). */
  spawn(args: string[], env?: Record<string, string>): ReturnType<typeof spawnCli>;
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** The identifier written into an entry file, if any. */
  identifierOf(rel: string): Promise<string | undefined>;
}

/**
 * A bare origin under `root`, a seed clone that commits an empty `content/entries/`, and
 * `n` clones of it, each run with `env`.
 */
export async function makeClones(root: string, n: number, env: Record<string, string>): Promise<{ origin: string; seed: string; clones: Clone[] }> {
  const origin = join(root, 'origin.git');
  await mkdir(origin, { recursive: true });
  git(origin, 'init', '-q', '--bare', '-b', 'main');
  const seed = join(root, 'seed');
  git(root, 'clone', '-q', origin, seed);
  await mkdir(join(seed, 'content/entries'), { recursive: true });
  await writeFile(join(seed, 'content/entries/.gitkeep'), '');
  await writeFile(join(seed, '.gitignore'), '.changelog/lock\n.changelog/lock.json\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'an empty changelog');
  git(seed, 'push', '-q', 'origin', 'main');
  const clones: Clone[] = [];
  for (let i = 1; i <= n; i++) {
    const dir = join(root, `clone-${i}`);
    git(root, 'clone', '-q', origin, dir);
    const contentDir = join(dir, 'content');
    clones.push({
      dir,
      contentDir,
      spawn: (args, more = {}) => spawnCli(args, { cwd: dir, env: { ...env, ...more }, timeoutMs: 120_000 }),
      run: (args, more = {}) => spawnCli(args, { cwd: dir, env: { ...env, ...more }, timeoutMs: 120_000 }).done,
      identifierOf: async (rel) => parseEntryFile(rel, await readFile(join(contentDir, rel))).data.identifier,
    });
  }
  return { origin, seed, clones };
}

/** Commits new entry files in the seed clone and pushes them to origin; @returns their paths relative to `content/`. */
export async function addEntries(seed: string, files: Array<{ name: string; title: string; day: string }>): Promise<string[]> {
  const rels: string[] = [];
  for (const f of files) {
    const rel = `entries/${f.day}-${f.name}.md`;
    await writeFile(join(seed, 'content', rel), `---\ntitle: ${JSON.stringify(f.title)}\npublish_at: ${f.day}\nis_published: true\n---\n\nWhat changed: ${f.title}.\n`);
    rels.push(rel);
  }
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', `add ${files.length} entries`);
  git(seed, 'push', '-q', 'origin', 'main');
  return rels;
}
