// Every row accounted for: a subscriber import stopped by SIGTERM (a cancelled job) and its rerun
// together account for every row, each added exactly once; stopped by SIGTERM or SIGINT it
// exits 143 or 130 once the batch in flight settled (src/cli/stop-signals.ts); killed outright (SIGKILL), its
// progress file lets the rerun tell the rows it added from subscribers that were there. The real CLI against the
// emulator; the signal arrives at an exact point, not after a delay: the emulator holds the
// third batch's request, the test sends SIGTERM, waits for the CLI to say it will stop, and
// only then lets the batch be answered.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RequestLogRecord, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { runCli, spawnCli, tempDir } from '../../helpers/process/cli.js';

vi.setConfig({ testTimeout: 120_000 });

const TOKEN = 'interrupt-token';
const ROWS = 500;

let emu: RunningEmulator;
let ws: EmulatorWorkspace;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeEach(async () => {
  const store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Interrupted', tokens: [TOKEN] });
  emu = await startEmulator({ port: 0, store, limits: { windowMs: 100 } });
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN, CHANGELOG_RATE_WINDOW_MS: '100' };
  ({ dir, cleanup } = await tempDir());
  const lines = ['email,name'];
  for (let i = 1; i <= ROWS; i++) lines.push(`row${i}@example.com,Row ${i}`);
  await writeFile(join(dir, 'list.csv'), `${lines.join('\n')}\n`);
});
afterEach(async () => {
  await emu.close();
  await cleanup();
});

interface ImportDoc {
  rows: number;
  added: Array<{ line: number }>;
  skipped: Array<{ line: number; reason: string; message: string }>;
  failed: Array<{ line: number }>;
  notSent: Array<{ line: number; reason: string }>;
}

/** Every line of the report's lists, each list's lines sorted. */
function accounted(doc: ImportDoc): number[] {
  return [...doc.added, ...doc.skipped, ...doc.failed, ...doc.notSent].map((r) => r.line).sort((a, b) => a - b);
}

/**
 * Sends SIGTERM (or `signal`) to the run and waits until it says it will stop after the batch
 * in flight (or has ended: a CLI that dies of the signal never says it stops); then lets the
 * held batch be answered.
 */
async function stopBySigterm(run: ReturnType<typeof spawnCli>, release: () => void, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const stopping = new Promise<void>((resolve) => {
    let seen = '';
    run.child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(`${signal}: stopping: the batch in flight finishes, no other is sent`)) resolve();
    });
  });
  run.child.kill(signal);
  await Promise.race([stopping, run.done]);
  release();
}

describe('subscribers import stopped by SIGTERM', () => {
  it('finishes the batch in flight, reports every row, and with the rerun adds each row exactly once', async () => {
    const args = ['--json', 'subscribers', 'import', 'list.csv', '--verified-at', '2024-01-01', '--batch-size', '100'];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let posts = 0;
    const third = new Promise<void>((resolve) =>
      emu.events.on('request', (rec) => {
        if (rec.method !== 'POST') return;
        if (++posts === 3) {
          emu.faults.pause = held; // this request waits until released
          resolve();
        }
      }),
    );
    const run = spawnCli(args, { cwd: dir, env });
    await third;
    await stopBySigterm(run, release);
    const killed = await run.done;
    // As push and sync: the status a shell gives a program SIGTERM ended, once it settled.
    expect(killed.code, killed.stderr).toBe(143);
    const first = JSON.parse(killed.stdout) as ImportDoc;
    // Batches 1-3 (the third was in flight) added; 4 and 5 not sent, as interrupted.
    expect(first.added).toHaveLength(300);
    expect(first.notSent).toHaveLength(200);
    expect(new Set(first.notSent.map((n) => n.reason))).toEqual(new Set(['interrupted']));
    expect(accounted(first)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2)); // lines 2..501
    expect(emu.log.filter((r) => r.method === 'POST')).toHaveLength(3);

    delete emu.faults.pause;
    const rerun = await runCli(args, { cwd: dir, env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const second = JSON.parse(rerun.stdout) as ImportDoc;
    expect(accounted(second)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2));
    // Together: every row added exactly once, by one run or the other.
    const added = [...first.added, ...second.added].map((r) => r.line).sort((a, b) => a - b);
    expect(added).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2));
    // The rows the stopped run added are told apart from subscribers that were there before.
    expect(second.skipped.filter((s) => s.reason === 'added-earlier')).toHaveLength(300);
    expect(ws.subscribers).toHaveLength(ROWS);
    expect(existsSync(join(dir, '.changelog/subscribers-import.json'))).toBe(false); // done: nothing left for a rerun
  });

  it('killed outright (SIGKILL) with a batch in flight: the rerun tells the rows that run added or sent from earlier subscribers', async () => {
    const args = ['--json', 'subscribers', 'import', 'list.csv', '--verified-at', '2024-01-01', '--batch-size', '100'];
    let release!: () => void;
    let posts = 0;
    const third = new Promise<RequestLogRecord>((resolve) =>
      emu.events.on('request', (rec) => {
        if (rec.method === 'POST' && ++posts === 3) {
          emu.faults.pause = new Promise<void>((r) => (release = r));
          resolve(rec);
        }
      }),
    );
    const run = spawnCli(args, { cwd: dir, env });
    const held = await third;
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    // The service carries out the batch whose client is gone.
    const answered = new Promise<void>((resolve) => emu.events.on('response', (rec) => rec === held && resolve()));
    release();
    await answered;
    delete emu.faults.pause;
    expect(ws.subscribers).toHaveLength(300);

    const rerun = await runCli(args, { cwd: dir, env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const doc = JSON.parse(rerun.stdout) as ImportDoc;
    expect(accounted(doc)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 2));
    expect(doc.added.map((a) => a.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 302));
    const earlier = doc.skipped.filter((s) => s.reason === 'added-earlier');
    expect(earlier.map((s) => s.line)).toEqual(Array.from({ length: 300 }, (_, i) => i + 2));
    expect(earlier[0]!.message).toMatch(/^added by an earlier run of this import that was stopped \(batch 1, 20\d\d-.*\): on the service now$/);
    expect(earlier[299]!.message).toMatch(/^sent by an earlier run of this import that was stopped \(batch 3, .*, its answer lost\): on the service now$/);
    expect(ws.subscribers).toHaveLength(ROWS);
  });

  it('stopped by SIGINT (Ctrl-C): exits 130 once settled, and the human report says how many rows were not sent', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = new Promise<void>((resolve) =>
      emu.events.on('request', (rec) => {
        if (rec.method === 'POST' && !emu.faults.pause) {
          emu.faults.pause = held;
          resolve();
        }
      }),
    );
    const run = spawnCli(['subscribers', 'import', 'list.csv', '--verified-at', '2024-01-01', '--batch-size', '100'], { cwd: dir, env });
    await first;
    await stopBySigterm(run, release, 'SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130); // Ctrl-C
    expect(r.stdout).toContain('100 subscribers added');
    expect(r.stdout).toContain('Not sent (400): 400 after the run was told to stop (SIGTERM or Ctrl-C); run the same import again: rows already added are skipped');
    expect(r.stderr).toContain('batch 2/5 (lines 102-201, 100 rows): not sent: the run was told to stop (SIGTERM or Ctrl-C) before it');
  });
});
