// subscribers import of 10,000 rows against the emulator (compressed rate window):
// parse + plan time, requests, and the wall time the real limits (60/min) would impose.
import { performance } from 'node:perf_hooks';
import { ChangelogClient } from '../../dist/service/client.js';
import { RateBudget } from '../../dist/service/rate-budget.js';
import { startEmulator } from '../../dist/emulator/server.js';
import { EmulatorStore } from '../../dist/emulator/store.js';
import { parseSubscriberCsv } from '../../dist/subscribers/csv-read.js';
import { importSubscribers, planImport } from '../../dist/subscribers/import.js';

export const name = 'subscribers-import';
export const description = '10,000-row CSV import: parse, plan, batches through the rate budget (emulator, 100 ms window)';

const ROWS = 10_000;
const WINDOW_MS = 100;

function csv() {
  const lines = ['Email Address;First Name;Last Name;confirmed_at'];
  for (let i = 1; i <= ROWS; i++) lines.push(`person${i}@example.com;Zoë ${i};"Martin; ${i}";2024-03-0${(i % 9) + 1} 10:00:00`);
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`);
}

export async function run() {
  const bytes = csv();
  let t = performance.now();
  const parsed = parseSubscriberCsv(bytes, 'bench.csv', { verifiedColumn: 'confirmed_at' });
  const parseMs = performance.now() - t;
  t = performance.now();
  planImport(parsed, [], { today: new Date().toISOString().slice(0, 10) });
  const planMs = performance.now() - t;

  const store = new EmulatorStore();
  store.addWorkspace({ name: 'Bench', tokens: ['bench-token'] });
  const emu = await startEmulator({ port: 0, store, limits: { windowMs: WINDOW_MS } });
  const client = new ChangelogClient({ baseUrl: emu.url, token: 'bench-token', budget: new RateBudget({ windowMs: WINDOW_MS }) });
  try {
    const results = {};
    for (const batchSize of [undefined, 10]) {
      store.workspaces[0].subscribers = [];
      const before = emu.log.length;
      t = performance.now();
      const r = await importSubscribers({ client, csv: parsed, batchSize });
      const ms = performance.now() - t;
      const times = new RateBudget().schedule(r.requests);
      results[batchSize === undefined ? 'defaultBatchSize' : `batchSize${batchSize}`] = {
        batchSize: r.batchSize,
        added: r.added.length,
        requests: r.requests,
        emulatorRequests: emu.log.length - before,
        responses429: emu.log.slice(before).filter((x) => x.status === 429).length,
        importMsCompressedWindow: Math.round(ms),
        minutesAtRealLimits: Number(((times.at(-1) - times[0]) / 60_000).toFixed(1)),
      };
    }
    return { rows: ROWS, csvBytes: bytes.length, parseMs: Math.round(parseMs), planMs: Math.round(planMs), ...results };
  } finally {
    await client.close();
    await emu.close();
  }
}
