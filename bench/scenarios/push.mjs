// Benchmark "push": 120 new entries pushed by the real CLI (dist/cli.js) to the emulator
// at the service's real limit of 60 requests a minute, on a compressed clock (a "minute"
// of BENCH_WINDOW_MS, default 10,000 ms), or in real time with BENCH_REAL_TIME=1.
//
// Figures, from the emulator's request log:
// - entries_per_minute: entries created / minutes (of the compressed clock) from the
//   first request to the last;
// - fraction_of_ceiling: that over the ceiling of 60 a minute (goal >= 0.95). A sliding
//   window lets the first 60 requests go at once, so for R requests the earliest the last
//   can go is floor((R-1)/60) minutes after the first; with 120 POSTs and the 2 reads
//   that plan them, that is 2 minutes, exactly 120 entries at 60 a minute;
// - rate_limited_429: 429 answers (goal 0); duplicates: entries created twice (must be 0).
//
// BENCH_LEASE=1: the project is a clone of a bare origin, so push holds the push lease
// (docs/sync.md#the-push-lease) and checks it before each POST (its figures must not move).
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';

export const name = 'push';
export const description = '120 new entries at the real 60/min limit (compressed clock unless BENCH_REAL_TIME=1): entries/minute vs the ceiling, 429s';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const ENTRIES = 120;
const PER_MINUTE = 60;

/** Writes `count` new entry files (never pushed) into `dir`'s content/entries. */
export async function writeNewEntries(dir, count) {
  await mkdir(join(dir, 'content/entries'), { recursive: true });
  for (let i = 1; i <= count; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    await writeFile(join(dir, 'content/entries', `${day}-bench-${i}.md`), `---\ntitle: "Bench entry ${i}"\npublish_at: ${day}\nis_published: true\n---\n\nBody of entry **${i}**.\n`);
  }
}

export async function run() {
  const realTime = process.env.BENCH_REAL_TIME === '1';
  const windowMs = realTime ? 60_000 : Number(process.env.BENCH_WINDOW_MS ?? 10_000);
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 20);
  const store = new EmulatorStore();
  const ws = store.addWorkspace({ name: 'Bench', tokens: ['bench-token'] });
  const emu = await startEmulator({ port: 0, store, limits: { perMinute: PER_MINUTE, windowMs }, faults: { latencyMs } });
  const lease = process.env.BENCH_LEASE === '1';
  const root = await mkdtemp(join(tmpdir(), 'changelog-sync-bench-push-'));
  const dir = lease ? join(root, 'clone') : root;
  try {
    if (lease) {
      execFileSync('git', ['init', '-q', '--bare', join(root, 'origin.git')]);
      execFileSync('git', ['clone', '-q', join(root, 'origin.git'), dir], { stdio: 'ignore' });
    }
    await writeNewEntries(dir, ENTRIES);
    const started = Date.now();
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'push', '--quiet'], {
        cwd: dir,
        env: { ...process.env, CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'bench-token', CHANGELOG_RATE_WINDOW_MS: String(windowMs) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('error', reject);
      child.on('close', resolve);
    });
    const wallMs = Date.now() - started;
    const counted = emu.log.filter((r) => r.workspace);
    const first = counted[0].at;
    const last = counted.at(-1).at;
    const minutes = (last - first) / windowMs;
    const created = store.listEntries(ws);
    const perMinute = created.length / minutes;
    return {
      exit_code: code,
      clock: realTime ? 'real time (60 s minute)' : `compressed: a minute is ${windowMs} ms`,
      push_lease: lease ? 'held on a bare origin (BENCH_LEASE=1)' : 'none (not a git repository)',
      emulator_latency_ms: latencyMs,
      entries_created: created.length,
      duplicates: created.length - new Set(created.map((e) => e.title)).size,
      requests: counted.length,
      rate_limited_429: emu.log.filter((r) => r.status === 429).length,
      minutes_first_to_last_request: Number(minutes.toFixed(4)),
      entries_per_minute: Number(perMinute.toFixed(2)),
      ceiling_per_minute: PER_MINUTE,
      fraction_of_ceiling: Number((perMinute / PER_MINUTE).toFixed(4)),
      wall_ms: wallMs,
    };
  } finally {
    await emu.close();
    await rm(root, { recursive: true, force: true });
  }
}
