// pull-media: 1,000 entries (the corpus repeated), 500 of them with a screenshot on the
// emulator's image host (500 distinct images of 50 KB), pulled into an empty directory
// (cold: every image downloaded into content/media/), then again with nothing changed
// (no-op: 0 images fetched, 0 files written); beside the same entries without images.
// The CLI runs under /usr/bin/time (see pull.mjs); the emulator and its image host run in
// this process. Sizes: BENCH_PULL_MEDIA_COUNT (entries, default 1000; half get an image),
// BENCH_PULL_MEDIA_RUNS (default 3).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';
import { settleDisk } from '../disk.mjs';
import { loadCorpus, runCli } from './pull.mjs';

export const name = 'pull-media';
export const description = '1,000 entries, 500 with an image on the emulator image host: cold pull (every image mirrored) and no-op pull (0 fetches), beside the same entries without images';

const COUNT = Number(process.env.BENCH_PULL_MEDIA_COUNT ?? 1000);
const RUNS = Number(process.env.BENCH_PULL_MEDIA_RUNS ?? 3);
const IMAGE_BYTES = 50 * 1024;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A PNG signature and header followed by distinct filler: a PNG by its bytes, unique per `n`. */
function pngOf(n) {
  const head = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ', 'base64');
  const filler = Buffer.alloc(IMAGE_BYTES - head.length);
  let seed = createHash('sha256').update(String(n)).digest();
  for (let at = 0; at < filler.length; at += seed.length) {
    seed.copy(filler, at);
    seed = createHash('sha256').update(seed).digest();
  }
  return Buffer.concat([head, filler]);
}

/** The store: `count` entries; with `images`, every second one shows an image of its own. */
function store(count, images) {
  const corpus = loadCorpus();
  const s = new EmulatorStore();
  const ws = s.addWorkspace({ name: 'Bench', tokens: ['bench-token'] });
  for (let i = 0; i < count; i++) {
    const e = corpus[i % corpus.length];
    const copy = Math.floor(i / corpus.length);
    let html = `${e.html}<p>Copy ${copy} of ${e.slug}.</p>`;
    if (images && i % 2 === 0) {
      s.media.set(`shot-${i}.png`, { type: 'image/png', body: pngOf(i) });
      html += `<p><img src="{{media}}/shot-${i}.png" alt="Screenshot ${i}"></p>`;
    }
    s.insertEntry(ws, { title: e.title, slug: copy ? `${e.slug}-copy-${copy}` : e.slug, publish_at: e.date, status: 'published', content: html });
  }
  return s;
}

/** Cold and no-op pulls of one store, RUNS times. */
async function measure(images, dirs) {
  const emu = await startEmulator({ port: 0, store: store(COUNT, images) });
  const env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token' };
  const cold = [];
  const noop = [];
  const fetches = { cold: [], noop: [] };
  const noopWrites = [];
  let copies = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      const dir = await mkdtemp(join(tmpdir(), 'bench-pull-media-'));
      dirs.push(dir);
      let before = emu.mediaLog.length;
      const c = await runCli(['--json', 'pull'], dir, env);
      if (c.code !== 0) throw new Error(`cold pull exited ${c.code}: ${c.stderr}`);
      fetches.cold.push(emu.mediaLog.length - before);
      copies = existsSync(join(dir, 'content/media')) ? readdirSync(join(dir, 'content/media')).length : 0;
      cold.push(c);
      before = emu.mediaLog.length;
      const n = await runCli(['--json', 'pull'], dir, env);
      if (n.code !== 0) throw new Error(`no-op pull exited ${n.code}: ${n.stderr}`);
      fetches.noop.push(emu.mediaLog.length - before);
      noopWrites.push(n.json?.writes?.length);
      noop.push(n);
    }
  } finally {
    await emu.close();
  }
  const figures = (runs) => ({ wallMs: { min: Math.min(...runs.map((r) => r.wallMs)), median: median(runs.map((r) => r.wallMs)) }, peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)) });
  return {
    cold: { ...figures(cold), imagesFetched: fetches.cold, copiesWritten: copies, failed: cold[0].json?.media?.failed?.length },
    noop: { ...figures(noop), imagesFetched: fetches.noop, filesWritten: noopWrites },
  };
}

export async function run() {
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed (apt-get install time)');
  const dirs = [];
  try {
    dirs.push(await settleDisk());
    const withImages = await measure(true, dirs);
    const without = await measure(false, dirs);
    return {
      entries: COUNT,
      images: Math.ceil(COUNT / 2),
      imageKb: IMAGE_BYTES / 1024,
      runs: RUNS,
      withImages,
      withoutImages: without,
      noopFetchesNothing: withImages.noop.imagesFetched.every((n) => n === 0) && withImages.noop.filesWritten.every((n) => n === 0),
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    };
  } finally {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  }
}
