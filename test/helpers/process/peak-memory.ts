// The peak memory of a real CLI run, process tree included: for the tests that a run stays
// within a bound (a build with hostile images within 1 GB). The CLI runs under
// GNU time (`/usr/bin/time -f %M`: the CLI process's peak resident set, its threads
// included); the processes it starts (Pagefind's binary) are read from /proc while they run,
// each at its own high-water mark (VmHWM), and added: a bound on the tree's peak from above.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { CLI, type CliResult } from './cli.js';

/** GNU time, from Debian's `time` package (.ci/run installs it when missing). */
const TIME = '/usr/bin/time';

/** A run and its peak memory. */
export interface MeasuredRun extends CliResult {
  /** The CLI process's peak resident set plus each process it started at its own peak, in KiB. */
  peakKib: number;
}

/** Parent pid of each process, from /proc. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields start after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A process's peak resident set (VmHWM) in KiB, or 0 when it is gone. */
function highWater(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Runs the real CLI and measures its peak memory (see the module's description).
 * The environment is cleaned of CHANGELOG_* and GITHUB_* unless given, as `runCli` does.
 */
export function runCliMeasured(args: string[], options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<MeasuredRun> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  Object.assign(env, { NO_COLOR: '1' }, options.env ?? {});
  const child = spawn(TIME, ['-f', 'peak-rss-kib=%M', process.execPath, CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const others = new Map<number, number>();
  const sample = (): void => {
    const ppid = parents();
    const cli = [...ppid].find(([, parent]) => parent === child.pid)?.[0];
    if (cli === undefined) return;
    // Every descendant of the CLI process.
    const tree = new Set([cli]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, parent] of ppid) {
        if (!tree.has(pid) && tree.has(parent)) {
          tree.add(pid);
          grew = true;
        }
      }
    }
    tree.delete(cli);
    for (const pid of tree) others.set(pid, Math.max(others.get(pid) ?? 0, highWater(pid)));
  };
  const sampler = setInterval(sample, 100);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      const own = /peak-rss-kib=(\d+)\s*$/.exec(stderr);
      const peakKib = Number(own?.[1] ?? Number.NaN) + [...others.values()].reduce((a, b) => a + b, 0);
      resolve({ code, signal, stdout, stderr: stderr.replace(/peak-rss-kib=\d+\s*$/, ''), peakKib });
    });
  });
}
