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

/** Options of {@link emulatorCommand}. */
export interface EmulatorCommandOptions {
  port?: number;
  host?: string;
  /** `demo`, a seed file, or undefined for an empty emulator with one workspace. */
  seed?: string;
  limits?: EmulatorLimits;
  faults?: EmulatorFaults;
  /** Append every answered request to this file as one JSON line (a {@link RequestLogRecord}). */
  requestLog?: string;
  /** Resolves when the emulator should stop (default: SIGINT or SIGTERM). */
  until?: Promise<void>;
}

/** The emulator command's options as commander parses them (see `cli.ts`): one per limit and fault. */
export type EmulatorCliOptions = { port: number; host: string; seed?: string; requestLog?: string } & EmulatorLimits & Omit<EmulatorFaults, 'random' | 'pause'>;

/** Maps the command line's options to {@link EmulatorCommandOptions}. */
export function emulatorOptionsFromCli(o: EmulatorCliOptions): EmulatorCommandOptions {
  const { port, host, seed, requestLog, perMinute, perDay, windowMs, dayMs, ...faults } = o;
  return { port, host, seed, requestLog, limits: { perMinute, perDay, windowMs, dayMs }, faults };
}

/**
 * Runs the emulator until told to stop.
 * @param cwd the working directory the CLI was started in (`Config.cwd`): a relative seed or request log is there.
 */
export async function emulatorCommand(reporter: Reporter, options: EmulatorCommandOptions, cwd: string): Promise<ExitCode> {
  let store: EmulatorStore;
  if (options.seed) store = await loadSeed(options.seed === 'demo' ? 'demo' : resolve(cwd, options.seed));
  else {
    store = new EmulatorStore();
    store.addWorkspace({ name: 'Workspace', tokens: ['emulator-token'] });
  }
  const emulator = await startEmulator({ port: options.port ?? 0, host: options.host, store, limits: options.limits, faults: options.faults });
  if (options.requestLog) {
    const file = resolve(cwd, options.requestLog);
    writeFileSync(file, '');
    emulator.events.on('response', (r: RequestLogRecord) => appendFileSync(file, `${JSON.stringify(r)}\n`));
  }
  const faults = Object.entries(options.faults ?? {})
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
      ...(options.requestLog ? [`  request log: ${options.requestLog}`] : []),
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
    { command: 'emulator', url: emulator.url, port: emulator.port, workspaces, faults: Object.fromEntries(faults), requestLog: options.requestLog },
  );
  await (options.until ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }));
  await emulator.close();
  return EXIT.OK;
}
