// `subscribers remove` stopped by SIGTERM (a cancelled job) or SIGINT (Ctrl-C) follows the rule
// push, sync and import follow (src/cli/stop-signals.ts): no batch starts after the signal, the
// one in flight settles and is reported, every address is accounted for, and the process exits
// 143 or 130. The real CLI against the emulator; the signal arrives at an exact point: the
// emulator holds the second batch's DELETE, the test sends the signal, waits for the CLI to say
// it will stop, and only then lets the batch be answered. A rerun removes the rest.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../../src/emulator/store.js';
import { runCli, spawnCli, tempDir } from '../../helpers/process/cli.js';

vi.setConfig({ testTimeout: 120_000 });

const TOKEN = 'remove-interrupt-token';
const ROWS = 50;

let emu: RunningEmulator;
let ws: EmulatorWorkspace;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeEach(async () => {
  const store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Remove interrupted', tokens: [TOKEN] });
  const emails = Array.from({ length: ROWS }, (_, i) => `row${i + 1}@example.com`);
  store.addSubscribers(ws, { subscribers: emails.map((email) => ({ email, verified_at: '2024-01-01' })) });
  emu = await startEmulator({ port: 0, store, limits: { windowMs: 100 } });
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN, CHANGELOG_RATE_WINDOW_MS: '100' };
  ({ dir, cleanup } = await tempDir());
  await writeFile(join(dir, 'gone.csv'), `email\n${emails.join('\n')}\n`);
});
afterEach(async () => {
  await emu.close();
  await cleanup();
});

interface RemoveDoc {
  removed: Array<{ email: string }>;
  notFound: Array<{ email: string }>;
  failed: Array<{ email: string; status: string; message: string }>;
}

for (const [signal, status] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  describe(`subscribers remove stopped by ${signal}`, () => {
    it(`finishes the batch in flight, sends no other, reports every address and exits ${status}; the rerun removes the rest`, async () => {
      const args = ['--json', 'subscribers', 'remove', '--file', 'gone.csv', '--batch-size', '10'];
      let release!: () => void;
      let deletes = 0;
      const second = new Promise<void>((resolve) =>
        emu.events.on('request', (rec) => {
          if (rec.method === 'DELETE' && ++deletes === 2) {
            emu.faults.pause = new Promise<void>((r) => (release = r)); // this request waits until released
            resolve();
          }
        }),
      );
      const run = spawnCli(args, { cwd: dir, env });
      await second;
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
      const stopped = await run.done;
      expect(stopped.signal, stopped.stderr).toBeNull();
      expect(stopped.code, stopped.stderr).toBe(status);
      const doc = JSON.parse(stopped.stdout) as RemoveDoc;
      // Batches 1 and 2 (the second was in flight) removed; 3 to 5 not sent, as interrupted.
      expect(doc.removed).toHaveLength(20);
      expect(doc.failed).toHaveLength(30);
      expect(new Set(doc.failed.map((f) => f.status))).toEqual(new Set(['interrupted']));
      expect(doc.failed[0]!.message).toBe('not sent: the run was told to stop (SIGTERM or Ctrl-C) before it; run the same command again');
      expect(doc.removed.length + doc.notFound.length + doc.failed.length).toBe(ROWS);
      expect(emu.log.filter((r) => r.method === 'DELETE')).toHaveLength(2);
      expect(ws.subscribers).toHaveLength(30);

      delete emu.faults.pause;
      const rerun = await runCli(args, { cwd: dir, env });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(ws.subscribers).toHaveLength(0);
    });
  });
}
