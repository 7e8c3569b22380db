import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/** The compiled CLI (npm test builds it first). */
export const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));

export interface CliResult {
  code: number | null;
  /** The signal that ended it, if one did. */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a child process. The environment is cleaned of CHANGELOG_* unless given. */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; cli?: string }): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** Starts the real CLI as a child process (to kill it at a chosen moment); `done` resolves when it closed. */
export function spawnCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; /** Another build of the CLI (default {@link CLI}). */ cli?: string },
): { child: ChildProcess; done: Promise<CliResult> } {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  Object.assign(env, { NO_COLOR: '1' }, options.env ?? {});
  const child = spawn(process.execPath, [options.cli ?? CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const done = new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

/** A temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'changelog-sync-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A temporary directory for the tests of the enclosing `describe` block (or file): made
 * before them, or before each with `each`, and removed after; `use` receives its path.
 * Hooks run in the order they are declared, so a `beforeAll` declared after this one can
 * write into the directory.
 */
export function useTempDir(use: (dir: string) => void, options: { each?: boolean } = {}): void {
  let cleanup: (() => Promise<void>) | undefined;
  (options.each ? beforeEach : beforeAll)(async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    use(made.dir);
  });
  (options.each ? afterEach : afterAll)(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
}
