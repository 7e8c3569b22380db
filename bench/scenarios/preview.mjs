// Scenario "preview": `changelog-sync dev` as a writer waits for it, on a mirror of 2,000
// entries made from the real corpus (as the build scenario makes them), against a cold
// `build --no-cache` of the same mirror measured in the same round: how long `dev` takes to
// serve its first page (cold: no cache; warm: with the bodies the previous `dev` kept in
// the build cache), how long an edited entry takes to show the edit on its page, and a new
// entry to show on the home page, each as a ratio of the round's cold build. Alternated
// within each round (build, dev cold, dev warm), BENCH_PREVIEW_ROUNDS (2) rounds; three
// edits and three new entries a dev session (the median). The figures name the load average
// (a shared machine: ratios within one round are what count). BENCH_PREVIEW_SIZES=2000,10000
// adds 10,000 entries. A page is waited for by asking the dev server for it every 20 ms
// until it shows the change (what a writer's reload would show).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settleDisk } from '../disk.mjs';
import { corpus, writeContent } from './build.mjs';

export const name = 'preview';
export const description = 'changelog-sync dev on 2,000 corpus entries (10,000 with BENCH_PREVIEW_SIZES=2000,10000): first page served (cold, warm cache), an edit on its page, a new entry on the home page, as ratios of a cold build --no-cache in the same round';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const SIZES = (process.env.BENCH_PREVIEW_SIZES ?? '2000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_PREVIEW_ROUNDS ?? 2);
const NODE = process.env.BENCH_NODE || process.execPath;
/** Edits and new entries in each dev session. */
const CHANGES = 3;

const seconds = (from) => Math.round(Number(process.hrtime.bigint() - from) / 1e7) / 100;
const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const load = () => loadavg().map((l) => Math.round(l * 10) / 10);

/** The wall time of a command that must succeed, seconds. */
function timed(args, options) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(seconds(started)) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

/** The page at `url` once `shows(html)` holds, asked for every 20 ms (gives up after 5 minutes). */
async function waitFor(url, shows) {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const html = await fetch(url)
      .then((r) => (r.ok ? r.text() : ''))
      .catch(() => '');
    if (shows(html)) return html;
    if (Date.now() > deadline) throw new Error(`${url} never showed the change`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Writes as an editor saves: a temporary file renamed over the file. */
async function save(file, text) {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

/**
 * A `dev` session: the time to its first page served, then (unless `startOnly`) each edit's
 * time to its page and each new entry's to the home page, seconds.
 */
async function devSession(dir, files, env, port, round, startOnly) {
  const started = process.hrtime.bigint();
  // --verbose: Eleventy's log and the pages each rebuild rendered, shown when a wait fails.
  const child = spawn(NODE, [CLI, 'dev', '--port', String(port), '--verbose'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      const check = () => {
        const m = /Serving the changelog at (\S+)/.exec(output);
        if (m) resolve(m[1]);
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.once('exit', (code) => reject(new Error(`dev exited ${code}: ${output.slice(-2000)}`)));
    });
    await waitFor(url, (html) => html.includes('</html>'));
    const start = seconds(started);
    if (startOnly) return { start };
    const edits = [];
    for (let k = 0; k < CHANGES; k++) {
      // An entry in the middle of the mirror, a new sentence in its body.
      const file = files[Math.floor((files.length * (k + 1)) / (CHANGES + 1))];
      const path = join(dir, 'content/entries', file);
      const before = await readFile(path, 'utf8');
      const slug = /^slug: (.*)$/m.exec(before)[1].trim();
      const marker = `Edited in round ${round}, edit ${k}.`;
      const text = before.replace(/\n*$/, `\n\n${marker}\n`);
      const from = process.hrtime.bigint();
      await save(path, text);
      await waitFor(new URL(`/entries/${slug}/`, url).href, (html) => html.includes(marker));
      edits.push(seconds(from));
    }
    const added = [];
    const today = new Date().toISOString().slice(0, 10);
    for (let k = 0; k < CHANGES; k++) {
      const title = `A new entry ${round}-${k}`;
      const path = join(dir, 'content/entries', `${today}-preview-new-${round}-${k}.md`);
      const from = process.hrtime.bigint();
      await save(path, `---\ntitle: ${title}\nslug: preview-new-${round}-${k}\npublish_at: '${today}'\nstatus: published\ntags: []\n---\n\nOne new paragraph.\n`);
      await waitFor(url, (html) => html.includes(title));
      added.push(seconds(from));
    }
    return { start, edits, added };
  } catch (err) {
    throw new Error(`${err.message}; dev printed:\n${output.slice(-6000)}`, { cause: err });
  } finally {
    child.kill('SIGINT');
    await exited;
  }
}

export async function run() {
  const entries = await corpus();
  const figures = {};
  const dirs = [];
  try {
    for (const n of SIZES) {
      const dir = await mkdtemp(join(tmpdir(), `bench-preview-${n}-`));
      dirs.push(dir);
      const files = await writeContent(dir, entries, n);
      dirs.push(await settleDisk());
      const env = (extra = {}) => ({ ...process.env, NO_COLOR: '1', CHANGELOG_SITE_URL: 'https://changelog.example.com/', ...extra });
      const port = 30000 + (process.pid % 10000);
      const rounds = [];
      const loadBefore = load();
      for (let i = 0; i < ROUNDS; i++) {
        const cacheDir = join(dir, `cache-${i}`);
        const cold = await timed([CLI, 'build', '--no-cache'], { cwd: dir, env: env({ CHANGELOG_OUTPUT_DIR: join(dir, `build-${i}`) }) });
        const devEnv = env({ CHANGELOG_OUTPUT_DIR: join(dir, `dev-${i}`), CHANGELOG_BUILD_CACHE: cacheDir });
        const session = await devSession(dir, files, devEnv, port, i, false);
        // Warm: the bodies the session kept (a new output folder, as after a clean checkout).
        const warm = await devSession(dir, files, { ...devEnv, CHANGELOG_OUTPUT_DIR: join(dir, `dev-warm-${i}`) }, port, i, true);
        // The new entries go: the next round's mirror is this one's.
        for (let k = 0; k < CHANGES; k++) await rm(join(dir, 'content/entries', `${new Date().toISOString().slice(0, 10)}-preview-new-${i}-${k}.md`), { force: true });
        const round = {
          coldBuild: cold,
          devStart: session.start,
          devStartWarm: warm.start,
          edits: session.edits,
          newEntries: session.added,
          ratios: {
            editVsCold: ratio(median(session.edits), cold),
            newEntryVsCold: ratio(median(session.added), cold),
            devStartVsCold: ratio(session.start, cold),
            devStartWarmVsCold: ratio(warm.start, cold),
          },
        };
        rounds.push(round);
        console.log(n, `round ${i + 1}`, JSON.stringify(round));
      }
      const best = (key) => Math.min(...rounds.map((r) => r.ratios[key]));
      figures[`${n} entries`] = {
        loadAverage: { before: loadBefore, after: load() },
        rounds,
        // The best round's ratio of each (each ratio is within one round).
        ratios: { editVsCold: best('editVsCold'), newEntryVsCold: best('newEntryVsCold'), devStartVsCold: best('devStartVsCold'), devStartWarmVsCold: best('devStartWarmVsCold') },
        goals: { editVsCold: 0.05, newEntryVsCold: 0.1, devStartVsCold: 1.0 },
      };
    }
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
  return figures;
}
