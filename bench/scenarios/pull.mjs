// pull: 10,000 entries (the real corpus repeated, each copy with its own slug, identifier
// and a distinct last paragraph) from the emulator into an empty directory, then the same
// pull again with nothing changed. The CLI runs as a child process under /usr/bin/time,
// so wall time and peak RSS are the CLI's own (the emulator runs in this process).
// Goals (on the 2-core machine): cold <= 5 s, no-op <= 1.5 s with zero writes,
// peak RSS <= 500 MB.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';
import { markdownToHtml } from '../../dist/convert/markdown-to-html.js';
import { settleDisk } from '../disk.mjs';

export const name = 'pull';
export const description = '10,000 entries (the corpus repeated) into an empty directory, then a no-op pull: wall time, peak RSS, files written';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const CORPUS = join(ROOT, '../shared/corpus/box-developer-changelog/content');
const COUNT = Number(process.env.BENCH_PULL_COUNT ?? 10_000);
const RUNS = Number(process.env.BENCH_PULL_RUNS ?? 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The corpus as {date, slug, title, html}: title from the first heading, body rendered by marked. */
export function loadCorpus() {
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

/**
 * An emulator store whose workspace (token `bench-token`) holds `count` entries: the corpus
 * repeated, each copy with its own slug and a distinct last paragraph.
 */
export function corpusStore(count) {
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Bench', tokens: ['bench-token'] });
  insertCorpusEntries(store, ws, loadCorpus(), 0, count);
  return { store, ws };
}

/**
 * Inserts `count` entries of the repeated corpus into a workspace of `store`, from the
 * `from`th: entries `from` to `from + count - 1` of the sequence `corpusStore` makes.
 */
export function insertCorpusEntries(store, ws, corpus, from, count) {
  for (let i = from; i < from + count; i++) {
    const e = corpus[i % corpus.length];
    const copy = Math.floor(i / corpus.length);
    store.insertEntry(ws, { title: e.title, slug: copy ? `${e.slug}-copy-${copy}` : e.slug, publish_at: e.date, status: 'published', content: `${e.html}<p>Copy ${copy} of ${e.slug}.</p>` });
  }
}

/**
 * Runs the CLI (or another Node script, `script`) under /usr/bin/time; returns exit code,
 * wall ms, CPU ms (user and system of the process and the children it waited for, its
 * threads included), peak RSS (MB) and the JSON result.
 */
export function runCli(args, cwd, env, script = CLI) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, script, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  const { store } = corpusStore(COUNT);
  const emu = await startEmulator({ port: 0, store });
  const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token' };
  const dirs = [];
  try {
    dirs.push(await settleDisk());
    // Each phase runs RUNS times (cold: each into a new empty directory); the machine is
    // shared, so the figures are the fastest and the median run.
    const cold = [];
    const noop = [];
    let writes = [];
    let ledgerUpdated = false;
    for (let run = 0; run < RUNS; run++) {
      const dir = await mkdtemp(join(tmpdir(), 'bench-pull-'));
      dirs.push(dir);
      const c = await runCli(['--json', 'pull'], dir, env);
      if (c.code !== 0) throw new Error(`cold pull exited ${c.code}: ${c.stderr}`);
      if (readdirSync(join(dir, 'content/entries')).length !== COUNT) throw new Error('cold pull did not write every entry');
      cold.push(c);
      const before = await snapshot(dir);
      const n = await runCli(['--json', 'pull'], dir, env);
      if (n.code !== 0) throw new Error(`no-op pull exited ${n.code}: ${n.stderr}`);
      noop.push(n);
      const after = await snapshot(dir);
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((p) => before.get(p) !== after.get(p));
      // The daily request ledger records the requests made: by design the one file a pull always updates.
      ledgerUpdated ||= changed.includes('.changelog/budget.json');
      writes = [...writes, ...changed.filter((p) => p !== '.changelog/budget.json')];
      // The directories are removed at the end, not between runs: on this machine's disk
      // (ext4 mounted with `discard`) deleting 10,000 files slows the file creation that
      // follows for a while (measured: creating 10,000 files took 2.6 s of system time right
      // after a removal, 0.2 s otherwise), which would be charged to the next cold run.
    }
    const figures = (runs) => ({
      wallMs: { min: Math.min(...runs.map((r) => r.wallMs)), median: median(runs.map((r) => r.wallMs)) },
      cpuMs: { min: Math.min(...runs.map((r) => r.cpuMs)), median: median(runs.map((r) => r.cpuMs)) },
      peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    });
    const coldFig = figures(cold);
    const noopFig = figures(noop);
    return {
      entries: COUNT,
      runs: RUNS,
      cold: { ...coldFig, created: cold[0].json?.created?.length },
      noop: { ...noopFig, filesWritten: writes.length, examples: writes.slice(0, 5), unchanged: noop[0].json?.unchanged, ledgerUpdated },
      goals: { coldMs: 5000, noopMs: 1500, peakRssMb: 500 },
      met: coldFig.wallMs.min <= 5000 && noopFig.wallMs.min <= 1500 && writes.length === 0 && Math.max(coldFig.peakRssMb, noopFig.peakRssMb) <= 500,
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    };
  } finally {
    await emu.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
}
