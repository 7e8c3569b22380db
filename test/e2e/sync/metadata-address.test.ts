// No request reaches the metadata address: in a network namespace of the test's own, a listener on the
// cloud metadata address 169.254.169.254 (and one on a private address, 10.255.0.1), both
// added inside the namespace, receive nothing from push or pull, whatever the URL: the
// address itself, a host name resolving there (the namespace's own hosts file,
// /etc/netns/<name>/hosts, which `ip netns exec` mounts over /etc/hosts), or a loopback URL
// (the emulator's image host) redirecting there. The emulator and the real CLI run inside the
// namespace. The listeners answer every request with a PNG: a check that reached one would
// take the image as live and send the entry.
//
// Needs root (`ip netns add`) and iproute2 (.ci/run installs it); skipped, saying so, where
// the tests do not run as root.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI, tempDir, type CliResult } from '../../helpers/process/cli.js';
import { PNG_1X1 } from '../../helpers/sync/media.js';

vi.setConfig({ testTimeout: 120_000 });

const root = process.getuid?.() === 0;
const NS = `cs-fetch-${process.pid}`;
const DIST = fileURLToPath(new URL('../../../dist', import.meta.url));

/** What the namespace's host process runs: the two listeners and the emulator, its events as JSON lines. */
const HOST = `
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
const { startEmulator } = await import(process.env.DIST + '/emulator/server.js');
const { EmulatorStore } = await import(process.env.DIST + '/emulator/store.js');
const png = Buffer.from(process.env.PNG, 'base64');
let hits = 0;
for (const host of ['169.254.169.254', '10.255.0.1']) {
  const server = createServer((req, res) => {
    hits++;
    console.log(JSON.stringify({ hit: 'http://' + host + req.url }));
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise((resolve) => server.listen(80, host, resolve));
}
const store = new EmulatorStore();
const ws = store.addWorkspace({ name: 'Metadata', tokens: ['meta-token'] });
store.media.set('ok.png', { type: 'image/png', body: png });
store.media.set('to-metadata', { redirect: 'http://169.254.169.254/latest/meta-data/from-redirect' });
store.media.set('to-named-metadata', { redirect: 'http://metadata.test/latest/meta-data/from-named-redirect' });
store.media.set('to-private', { redirect: 'http://10.255.0.1/from-redirect.png' });
const images = JSON.parse(process.env.IMAGES);
images.forEach((src, i) => store.insertEntry(ws, { title: 'Entry ' + i, slug: 'entry-' + i, publish_at: '2026-01-0' + (i + 1), content: '<p><img src="' + src + '" alt="x"></p>' }));
store.insertEntry(ws, { title: 'Fine', slug: 'fine', publish_at: '2026-02-01', content: '<p><img src="{{media}}/ok.png" alt="ok"></p>' });
const emu = await startEmulator({ port: 0, store });
console.log(JSON.stringify({ url: emu.url, media: emu.mediaUrl }));
// "count" on stdin: the number of requests so far, after every hit line before it.
createInterface({ input: process.stdin }).on('line', () => console.log(JSON.stringify({ count: hits })));
`;

/** Every URL a stranger's content can aim at the two listeners; `{{media}}` is the emulator's image host on loopback. */
const AIMED = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://metadata.test/latest/meta-data/named.png',
  '{{media}}/to-metadata',
  '{{media}}/to-named-metadata',
  'http://10.255.0.1/private.png',
  'http://intranet.test/private.png',
  '{{media}}/to-private',
];

const ip = (...args: string[]) => {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr || r.error?.message}`);
};

let host: ChildProcessWithoutNullStreams;
let lines: Array<Record<string, unknown>> = [];
let waiting: Array<() => void> = [];
let emuUrl = '';
let mediaUrl = '';
let dir = '';
let cleanup: () => Promise<void> = () => Promise.resolve();

/** The next line of the host process that has `key`. */
async function next(key: string, from = 0): Promise<Record<string, unknown>> {
  for (;;) {
    const found = lines.slice(from).find((l) => key in l);
    if (found) return found;
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

/** The URLs the listeners were asked for so far (every hit line comes before the count's answer). */
async function hits(): Promise<string[]> {
  const from = lines.length;
  host.stdin.write('count\n');
  await next('count', from);
  return lines.filter((l) => 'hit' in l).map((l) => l.hit as string);
}

/** The real CLI inside the namespace. */
function cliInNamespace(args: string[]): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CHANGELOG_') || k.startsWith('GITHUB_')) delete env[k];
  Object.assign(env, { NO_COLOR: '1', CHANGELOG_BASE_URL: emuUrl, CHANGELOG_TOKEN: 'meta-token' });
  const child = spawn('ip', ['netns', 'exec', NS, process.execPath, CLI, ...args], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const aimed = (src: string) => src.replace('{{media}}', mediaUrl);

describe.skipIf(!root)('nothing reaches 169.254.169.254 or a private address from push or pull, in a network namespace (needs root: skipped otherwise)', () => {
  beforeAll(async () => {
    ip('netns', 'add', NS);
    ip('netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up');
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', '169.254.169.254/32', 'dev', 'lo');
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', '10.255.0.1/32', 'dev', 'lo');
    await mkdir(`/etc/netns/${NS}`, { recursive: true });
    await writeFile(`/etc/netns/${NS}/hosts`, '127.0.0.1 localhost\n::1 localhost\n169.254.169.254 metadata.test\n10.255.0.1 intranet.test\n');
    ({ dir, cleanup } = await tempDir());
    host = spawn('ip', ['netns', 'exec', NS, process.execPath, '--input-type=module', '-e', HOST], { env: { ...process.env, DIST, PNG: PNG_1X1.toString('base64'), IMAGES: JSON.stringify(AIMED) } });
    host.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    createInterface({ input: host.stdout }).on('line', (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      const wake = waiting;
      waiting = [];
      for (const w of wake) w();
    });
    const started = await next('url');
    emuUrl = started.url as string;
    mediaUrl = started.media as string;
  });
  afterAll(async () => {
    host?.kill();
    await cleanup();
    spawnSync('ip', ['netns', 'del', NS]);
    await rm(`/etc/netns/${NS}`, { recursive: true, force: true });
    lines = [];
  });

  it('the listeners answer inside the namespace (the control: a request would be seen)', async () => {
    const control = spawnSync('ip', ['netns', 'exec', NS, process.execPath, '-e', "fetch('http://metadata.test/control').then((r) => r.arrayBuffer())"], { encoding: 'utf8' });
    expect(control.status, control.stderr).toBe(0);
    expect(await hits()).toEqual(['http://169.254.169.254/control']);
  });

  it('pull: every image aimed there is refused and reported with its entry; the listeners get nothing; an image of the service is mirrored', async () => {
    const before = (await hits()).length;
    const r = await cliInNamespace(['pull']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect((await hits()).slice(before)).toEqual([]);
    for (const [i, src] of AIMED.entries()) {
      expect(out).toMatch(new RegExp(`image not downloaded: ${aimed(src).replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')} in entries/2026-01-0${i + 1}-entry-${i}\\.md \\("Entry ${i}"\\): .*(metadata|private) address`));
      const file = await readFile(join(dir, `content/entries/2026-01-0${i + 1}-entry-${i}.md`), 'utf8');
      expect(file).toContain(`](${aimed(src)})`);
    }
    // The service's own image host, on loopback beside the emulator, is allowed: mirrored.
    expect(await readFile(join(dir, 'content/entries/2026-02-01-fine.md'), 'utf8')).toMatch(/!\[ok\]\(\/media\/[0-9a-f]{64}\.png\)/);
  });

  for (const src of AIMED) {
    it(`push: a new entry whose image is ${src} is not checked there, nor sent`, async () => {
      const file = join(dir, 'content/entries/2026-04-01-aimed.md');
      await writeFile(file, `---\ntitle: Aimed\nis_published: true\npublish_at: 2026-04-01\n---\n![x](${aimed(src)})\n`);
      const before = (await hits()).length;
      const r = await cliInNamespace(['push']);
      expect((await hits()).slice(before)).toEqual([]);
      // Refused on every run: an error of the entry (exit 5), not a deferral.
      expect(r.code, r.stdout + r.stderr).toBe(5);
      expect(r.stdout + r.stderr).toMatch(/the image ".*" is at an address push never requests \(.*(metadata|private) address\)/);
      expect(await readFile(file, 'utf8')).not.toContain('identifier:');
    });
  }
});
