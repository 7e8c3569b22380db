/**
 * `changelog-sync emulator [--port N] [--seed demo|FILE] [limits] [faults] [--request-log FILE]`:
 * the service emulator as a long-running process, until Ctrl-C. Faults and the request
 * log are the same as tests use (`EmulatorFaults`, `RequestLogRecord`).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadSeed } from '../../emulator/seed.js';
import type { EmulatorFaults } from '../../emulator/faults.js';
import { startEmulator, type EmulatorLimits, type RequestLogRecord } from '../../emulator/server.js';
import { EmulatorStore } from '../../emulator/store.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { untilStopSignal } from '../stop-signals.js';

/**
 * Options of {@link emulatorCommand}, as commander parses them (see `cli.ts`): `seed` is `demo`, a
 * seed file or folder, or undefined for an empty emulator with one workspace; `requestLog` a file
 * every answered request is appended to as one JSON line (a {@link RequestLogRecord}); one option
 * per limit and fault.
 */
export type EmulatorCommandOptions = { port: number; host: string; seed?: string; requestLog?: string } & EmulatorLimits & Omit<EmulatorFaults, 'random' | 'pause'>;

/**
 * Runs the emulator until told to stop.
 * @param cwd the working directory the CLI was started in (`Config.cwd`): a relative seed or request log is there.
 */
export async function emulatorCommand(reporter: Reporter, options: EmulatorCommandOptions, cwd: string): Promise<ExitCode> {
  const { port, host, seed, requestLog, perMinute, perDay, windowMs, dayMs, ...faultOptions } = options;
  let store: EmulatorStore;
  if (seed) store = await loadSeed(seed === 'demo' ? 'demo' : resolve(cwd, seed));
  else {
    store = new EmulatorStore();
    store.addWorkspace({ name: 'Workspace', tokens: ['emulator-token'] });
  }
  const emulator = await startEmulator({ port, host, store, limits: { perMinute, perDay, windowMs, dayMs }, faults: faultOptions });
  if (requestLog) {
    const file = resolve(cwd, requestLog);
    writeFileSync(file, '');
    emulator.events.on('response', (r: RequestLogRecord) => appendFileSync(file, `${JSON.stringify(r)}\n`));
  }
  const faults = Object.entries(faultOptions)
    .filter(([, v]) => v !== undefined && v !== false)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const workspaces = store.workspaces.map((w) => ({ identifier: w.info.identifier, name: w.info.name, tokens: w.tokens }));
  reporter.result(
    [
      `Emulator listening on ${emulator.url}`,
      ...workspaces.map((w) => `  workspace "${w.name}" ${w.identifier}: token ${w.tokens.join(', ')}`),
      '',
      `  export CHANGELOG_BASE_URL=${emulator.url}`,
      `  export CHANGELOG_TOKEN=${workspaces[0]?.tokens[0] ?? ''}`,
      ...(faults.length > 0 ? ['', `  faults: ${faults.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`] : []),
      ...(requestLog ? [`  request log: ${requestLog}`] : []),
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
    { command: 'emulator', url: emulator.url, port: emulator.port, workspaces, faults: Object.fromEntries(faults), requestLog },
  );
  await untilStopSignal();
  await emulator.close();
  return EXIT.OK;
}
