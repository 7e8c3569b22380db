// A local npm registry for the tests that publish the tool and install it as a team does
// (test/adoption/): Verdaccio 6.8 (the last release that runs on Node 20), in a process of its
// own on a free loopback port, every package but changelog-sync proxied from the registry npm
// is configured with on this machine (read when the registry starts, never written into a file
// of the repository). Verdaccio is a private package of its own
// (test/helpers/registry/verdaccio/: its package.json pins it and the node-fetch override, with
// a lock file), installed with `npm ci` on first use into node_modules/.cache/ (outside test/,
// and emptied by the tool's own `npm ci`, on which it weighs nothing).
//
// What makes an install through it take seconds rather than minutes: what a registry publishes
// lives in its own temporary folder, but the packages it proxies are kept beside Verdaccio's
// install (shared by every registry on the machine), so that only the first registry fetches
// their metadata upstream; and npm installs with this machine's npm cache, which finds each
// tarball by its integrity (those `npm ci` fetched for this repository are there already).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const VERDACCIO = fileURLToPath(new URL('./verdaccio', import.meta.url));
/** Where Verdaccio is installed from VERDACCIO's package.json and lock file. */
const INSTALLED = join(REPO, 'node_modules', '.cache', 'changelog-sync-registry');

export interface LocalRegistry {
  /** http://127.0.0.1:<port>/ */
  url: string;
  /** Environment for a child npm/npx process that installs and publishes through this registry
   *  (npm_config_registry, a userconfig with the auth token, cache, no audit/fund/update-notifier).
   *  It is a whole environment: this process's, without the npm_* variables of an enclosing
   *  `npm run` and without CHANGELOG_* and GITHUB_*, plus those. The cache is this machine's
   *  npm cache (tarballs found by integrity); lock files written with it carry no `resolved`
   *  URL (the port changes from run to run). */
  env: Record<string, string>;
  /** `npm publish <tarball>` to this registry (optionally with a dist-tag). */
  publish(tarball: string, options?: { tag?: string }): Promise<void>;
  /** Ends the registry's process and removes its storage (what was published with it). */
  stop(): Promise<void>;
}

/** What a finished command printed. */
interface Ran {
  stdout: string;
  stderr: string;
}

/** This process's environment without what an enclosing `npm run` or a workflow set. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(npm_|CHANGELOG_|GITHUB_)/i.test(k)) continue;
    env[k] = v;
  }
  return env;
}

/** Runs a command to its end; rejects with what it printed when it fails. */
function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n${stdout}\n${stderr}`, { cause: error }));
      else resolve({ stdout, stderr });
    });
  });
}

/** What {@link runToEnd} resolves with. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end in `cwd` with exactly `env` (a registry's {@link LocalRegistry.env},
 * and more), asynchronously, so that an emulator in this process answers meanwhile; resolves
 * whatever its exit code.
 */
export function runToEnd(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Installs Verdaccio into node_modules/.cache/changelog-sync-registry from the lock file of
 * test/helpers/registry/verdaccio/, unless the installed tree was made from this very lock file
 * (a marker holds its hash). Test files in several workers may start a registry at once: one
 * installs, the others wait.
 */
async function ensureVerdaccio(): Promise<void> {
  const lock = await readFile(join(VERDACCIO, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex');
  const marker = join(INSTALLED, 'node_modules', '.installed-lock-sha256');
  const current = async (): Promise<boolean> => existsSync(marker) && (await readFile(marker, 'utf8')) === hash;
  if (await current()) return;
  await mkdir(INSTALLED, { recursive: true });
  const release = await lockfile.lock(INSTALLED, { lockfilePath: join(INSTALLED, '.install.lock'), retries: { retries: 600, minTimeout: 200, maxTimeout: 1000 }, stale: 120_000 });
  try {
    if (await current()) return;
    for (const file of ['package.json', 'package-lock.json']) await copyFile(join(VERDACCIO, file), join(INSTALLED, file));
    await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], INSTALLED, { ...baseEnv(), npm_config_update_notifier: 'false' });
    await writeFile(marker, hash);
  } finally {
    await release();
  }
}

/** Starts Verdaccio 6.8 on a free loopback port, storage in a temp folder, proxying the registry
 *  `npm config get registry` names (read at run time, never written into a file of the repo).
 *  Rejects when Verdaccio cannot be installed or its process exits before it listens. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  await ensureVerdaccio();
  const npmConfig = async (key: string): Promise<string> => (await run('npm', ['config', 'get', key], tmpdir(), baseEnv())).stdout.trim();
  const upstream = await npmConfig('registry');
  const cache = await npmConfig('cache');
  const root = await mkdtemp(join(tmpdir(), 'changelog-registry-'));
  const storage = join(root, 'storage');
  await mkdir(storage);
  const proxied = join(INSTALLED, 'proxied');
  await mkdir(proxied, { recursive: true });
  const child = spawn(process.execPath, [join(VERDACCIO, 'server.mjs'), INSTALLED, storage, upstream, proxied], { cwd: root, env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let url: string;
  try {
    url = await listening(child);
  } catch (err) {
    child.kill();
    await exited;
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
    await rm(root, { recursive: true, force: true });
  };
  try {
    const token = await addUser(url);
    const userconfig = join(root, 'npmrc');
    const hostPath = url.replace(/^https?:/, '');
    await writeFile(userconfig, `registry=${url}\n${hostPath}:_authToken=${token}\n`, { mode: 0o600 });
    const env: Record<string, string> = {
      ...baseEnv(),
      npm_config_registry: url,
      npm_config_userconfig: userconfig,
      npm_config_cache: cache,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_omit_lockfile_registry_resolved: 'true',
    };
    return {
      url,
      env,
      async publish(tarball, options = {}) {
        const args = ['publish', tarball, '--provenance=false', '--access', 'public', ...(options.tag ? ['--tag', options.tag] : [])];
        await run('npm', args, dirname(tarball), env);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Resolves with the registry's URL once server.mjs prints its port; rejects if it exits first. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const port = /^listening (\d+)$/m.exec(out)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}/`);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code, signal) => reject(new Error(`the local registry exited (${code ?? signal}) before it listened:\n${out}\n${err}`)));
  });
}

/** Adds the registry's one user (as `npm adduser` does) and returns its token, for publishing. */
async function addUser(url: string): Promise<string> {
  const name = 'changelog-sync-tests';
  const res = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: createHash('sha256').update(url).digest('hex') }),
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token) throw new Error(`the local registry refused its user (${res.status}): ${JSON.stringify(body)}`);
  return body.token;
}

/** `npm pack` of this repository (built dist/), optionally with another version written into the
 *  packed package.json; returns the tarball's path. */
export async function packTool(options: { version?: string; outDir?: string } = {}): Promise<string> {
  if (!existsSync(join(REPO, 'dist/cli.js'))) throw new Error('dist/ is not built: run `npm run build` first');
  const outDir = options.outDir ?? (await mkdtemp(join(tmpdir(), 'changelog-pack-')));
  await mkdir(outDir, { recursive: true });
  const env = { ...baseEnv(), npm_config_update_notifier: 'false' };
  // --ignore-scripts: dist/ is built already, and no lifecycle script runs twice.
  const pack = async (cwd: string, destination: string): Promise<{ filename: string; files: string[] }> => {
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], cwd, env);
    const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    return { filename: info!.filename, files: info!.files.map((f) => f.path) };
  };
  if (options.version === undefined) return join(outDir, (await pack(REPO, outDir)).filename);

  // Another version: the packed files copied into a staging folder, its package.json's version
  // changed, and packed again there (npm writes the tarball; the files are this repository's).
  const staging = await mkdtemp(join(tmpdir(), 'changelog-pack-staging-'));
  try {
    const first = await pack(REPO, staging);
    const tree = join(staging, 'package');
    for (const file of first.files) {
      await mkdir(dirname(join(tree, file)), { recursive: true });
      await copyFile(join(REPO, file), join(tree, file));
    }
    const manifest = JSON.parse(await readFile(join(tree, 'package.json'), 'utf8')) as Record<string, unknown>;
    manifest.version = options.version;
    await writeFile(join(tree, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return join(outDir, (await pack(tree, outDir)).filename);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
