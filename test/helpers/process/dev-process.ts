// The real `changelog-sync dev` as a child process, for the CLI and browser suites, and the
// live-reload channel of the pages it serves.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { request, WebSocket } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { CLI, tempDir } from './cli.js';

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


/** The repository and the running `dev` of a describe block (see {@link useDev}). */
export interface DevFixture {
  /** The repository (a temporary directory). */
  dir: string;
  /** Where `dev` serves, e.g. `http://localhost:20123/`. */
  url: string;
  dev: DevProcess;
}

/**
 * A temporary repository for the tests of the enclosing `describe` block, prepared by
 * `setup`, with `dev` serving it from before the first test until after the last.
 */
export function useDev(setup: (dir: string) => Promise<void>, options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): DevFixture {
  const fixture = {} as DevFixture;
  let cleanup: () => Promise<void> = () => Promise.resolve();
  beforeAll(async () => {
    const made = await tempDir();
    cleanup = made.cleanup;
    fixture.dir = made.dir;
    await setup(made.dir);
    fixture.dev = new DevProcess(made.dir, options.args, options.env);
    fixture.url = (await fixture.dev.output(/Serving the changelog at (\S+)/, 'the dev server'))[1]!;
  }, 180_000);
  afterAll(async () => {
    await fixture.dev?.stop();
    await cleanup();
  });
  return fixture;
}

/** Eleventy's live-reload channel, as the page's reload client opens it. */
export class ReloadChannel {
  readonly #socket: WebSocket;
  #waiters: Array<(type: string) => void> = [];
  readonly open: Promise<void>;

  constructor(url: string) {
    this.#socket = new WebSocket(url.replace(/^http/, 'ws'));
    this.open = new Promise((resolve, reject) => {
      this.#socket.addEventListener('open', () => resolve(), { once: true });
      this.#socket.addEventListener('error', () => reject(new Error('the live-reload websocket failed')), { once: true });
    });
    this.#socket.addEventListener('message', (ev) => {
      const type = (JSON.parse(String(ev.data)) as { type: string }).type;
      for (const w of this.#waiters) w(type);
    });
  }

  /** Resolves on the next message of that type. */
  next(type: string): Promise<void> {
    return new Promise((resolve) => {
      const w = (t: string) => {
        if (t !== type) return;
        this.#waiters = this.#waiters.filter((x) => x !== w);
        resolve();
      };
      this.#waiters.push(w);
    });
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * The page at `pageUrl` once `shows` holds, asked for now and after each reload: a save's
 * first pass reloads with the saved entry's page, the feeds and the rest of the site follow
 * with the next rebuild (src/site/dev/preview-data.ts).
 */
export async function untilShown(serverUrl: string, pageUrl: string, shows: (page: { status: number; body: string }) => boolean): Promise<{ status: number; body: string }> {
  const channel = new ReloadChannel(serverUrl);
  try {
    await channel.open;
    for (;;) {
      const reloaded = channel.next('eleventy.reload');
      const res = await request(pageUrl);
      const page = { status: res.statusCode, body: await res.body.text() };
      if (shows(page)) return page;
      await reloaded;
    }
  } finally {
    channel.close();
  }
}

/** Resolves once `path` exists: its folder is watched, and looked at on each of its events. */
export function fileExists(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = () => {
      if (!existsSync(path)) return;
      watcher.close();
      resolve();
    };
    const watcher = watch(dirname(path), look).on('error', reject);
    look();
  });
}
