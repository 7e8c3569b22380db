// The real `changelog-sync dev` as a child process, for the CLI and browser suites.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cli.js';

/** A running `dev`: its output, and promises of what it prints next. */
export class DevProcess {
  stdout = '';
  stderr = '';
  readonly child: ChildProcess;
  #waiters: Array<() => void> = [];

  constructor(cwd: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_')) delete env[k];
    Object.assign(env, extraEnv);
    // Port 0 is refused by --port; a high first port, and dev moves up past busy ones.
    this.child = spawn(process.execPath, [CLI, 'dev', '--port', String(20000 + (process.pid % 20000)), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const on = (key: 'stdout' | 'stderr') => (d: Buffer) => {
      this[key] += d.toString();
      for (const w of this.#waiters) w();
    };
    this.child.stdout!.on('data', on('stdout'));
    this.child.stderr!.on('data', on('stderr'));
  }

  /** Resolves with the first match of `pattern` in stdout + stderr, as soon as it is printed. */
  output(pattern: RegExp, what: string): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(this.stdout + this.stderr);
        if (m) {
          this.#waiters = this.#waiters.filter((w) => w !== check);
          resolve(m);
        }
      };
      this.#waiters.push(check);
      this.child.once('exit', (code) => reject(new Error(`dev exited (${code}) before ${what}:\n${this.stdout}\n${this.stderr}`)));
      check();
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGINT');
    await exited;
  }
}

