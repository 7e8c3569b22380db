// pull: 10,000 entries (the real corpus repeated, each copy with its own slug, identifier
// and a distinct last paragraph) from the emulator into an empty directory, then the same
// pull again with nothing changed. The CLI runs as a child process under /usr/bin/time,
// so wall time and peak RSS are the CLI's own (the emulator runs in this process).
// Goals (issue 4, on the 2-core machine): cold <= 5 s, no-op <= 1.5 s with zero writes,
// peak RSS <= 500 MB.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';
import { markdownToHtml } from '../../dist/mirror/convert.js';

export const name = 'pull';
export const description = '10,000 entries (the corpus repeated) into an empty directory, then a no-op pull: wall time, peak RSS, files written';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const CORPUS = join(ROOT, '../shared/corpus/box-developer-changelog/content');
const COUNT = Number(process.env.BENCH_PULL_COUNT ?? 10_000);

/** The corpus as {date, slug, title, html}: title from the first heading, body rendered by marked. */
function loadCorpus() {
  const out = [];
  for (const year of readdirSync(CORPUS).filter((y) => /^\d{4}$/.test(y)).sort()) {
    for (const file of readdirSync(join(CORPUS, year)).sort()) {
      const m = /^(\d{1,2})-(\d{2})-(.+?)(?:\.md)?$/.exec(file);
      if (!m) continue;
      const text = readFileSync(join(CORPUS, year, file), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
      const lines = text.split('\n');
      const h = lines.findIndex((l) => /^#{1,2} /.test(l));
      const title = h >= 0 ? lines[h].replace(/^#{1,2} /, '').trim() : m[3];
      const body = (h >= 0 ? [...lines.slice(0, h), ...lines.slice(h + 1)] : lines).join('\n');
      out.push({ date: `${year}-${m[1].padStart(2, '0')}-${m[2]}`, slug: m[3], title, html: markdownToHtml(body) });
    }
  }
  return out;
}

/** Runs the CLI under /usr/bin/time; returns exit code, wall ms, peak RSS (MB) and the JSON result. */
function runCli(args, cwd, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Math.round(performance.now() - started);
      const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, wallMs, cpuMs: m ? Math.round((Number(m[3]) + Number(m[4])) * 1000) : undefined, peakRssMb: m ? Math.round(Number(m[2]) / 1024) : undefined, json, stderr: stderr.slice(-2000) });
    });
  });
}

/** Every file under dir: path -> "mtimeMs size sha256". */
async function snapshot(dir) {
  const out = new Map();
  const walk = async (d) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else {
        const s = await stat(p);
        out.set(relative(dir, p), `${s.mtimeMs} ${s.size} ${createHash('sha256').update(await readFile(p)).digest('hex')}`);
      }
    }
  };
  await walk(dir);
  return out;
}

export async function run() {
  if (!existsSync(CORPUS)) throw new Error(`corpus not found at ${CORPUS}`);
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed to measure the peak RSS of the CLI (apt-get install time)');
  const corpus = loadCorpus();
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Bench', tokens: ['bench-token'] });
  for (let i = 0; i < COUNT; i++) {
    const e = corpus[i % corpus.length];
    const copy = Math.floor(i / corpus.length);
    store.insertEntry(ws, { title: e.title, slug: copy ? `${e.slug}-copy-${copy}` : e.slug, publish_at: e.date, status: 'published', content: `${e.html}<p>Copy ${copy} of ${e.slug}.</p>` });
  }
  const emu = await startEmulator({ port: 0, store });
  const dir = await mkdtemp(join(tmpdir(), 'bench-pull-'));
  const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token' };
  try {
    const cold = await runCli(['--json', 'pull'], dir, env);
    if (cold.code !== 0) throw new Error(`cold pull exited ${cold.code}: ${cold.stderr}`);
    const files = readdirSync(join(dir, 'content/entries')).length;
    const before = await snapshot(dir);
    const noop = await runCli(['--json', 'pull'], dir, env);
    if (noop.code !== 0) throw new Error(`no-op pull exited ${noop.code}: ${noop.stderr}`);
    const after = await snapshot(dir);
    const changed = [...after].filter(([p, v]) => before.get(p) !== v).map(([p]) => p);
    const added = [...after.keys()].filter((p) => !before.has(p));
    const removed = [...before.keys()].filter((p) => !after.has(p));
    // The daily request ledger records the requests made: by design the one file a pull always updates.
    const writes = [...new Set([...changed, ...added, ...removed])].filter((p) => p !== '.changelog/budget.json');
    return {
      entries: COUNT,
      cold: { wallMs: cold.wallMs, cpuMs: cold.cpuMs, peakRssMb: cold.peakRssMb, filesWritten: files, created: cold.json?.created?.length },
      noop: { wallMs: noop.wallMs, cpuMs: noop.cpuMs, peakRssMb: noop.peakRssMb, filesChanged: writes.length, changed: writes.slice(0, 10), unchanged: noop.json?.unchanged, ledgerUpdated: changed.includes('.changelog/budget.json') },
      goals: { coldMs: 5000, noopMs: 1500, peakRssMb: 500 },
      met: cold.wallMs <= 5000 && noop.wallMs <= 1500 && writes.length === 0 && Math.max(cold.peakRssMb ?? Infinity, noop.peakRssMb ?? Infinity) <= 500,
    };
  } finally {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}
