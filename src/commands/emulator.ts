/**
 * `changelog-sync emulator [--port N] [--seed demo|FILE]`: the service emulator as a
 * long-running process, until Ctrl-C.
 * @module
 */
import { loadSeed } from '../emulator/seed.js';
import { startEmulator, type EmulatorFaults, type EmulatorLimits } from '../emulator/server.js';
import { EmulatorStore } from '../emulator/store.js';
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
  /** Resolves when the emulator should stop (default: SIGINT or SIGTERM). */
  until?: Promise<void>;
}

/** Runs the emulator until told to stop. */
export async function emulatorCommand(reporter: Reporter, options: EmulatorCommandOptions = {}): Promise<ExitCode> {
  let store: EmulatorStore;
  if (options.seed) store = await loadSeed(options.seed);
  else {
    store = new EmulatorStore();
    store.addWorkspace({ name: 'Workspace', tokens: ['emulator-token'] });
  }
  const emulator = await startEmulator({ port: options.port ?? 0, host: options.host, store, limits: options.limits, faults: options.faults });
  const workspaces = store.workspaces.map((w) => ({ identifier: w.info.identifier, name: w.info.name, tokens: w.tokens }));
  reporter.result(
    [
      `Emulator listening on ${emulator.url}`,
      ...workspaces.map((w) => `  workspace "${w.name}" ${w.identifier}: token ${w.tokens.join(', ')}`),
      '',
      `  export CHANGELOG_BASE_URL=${emulator.url}`,
      `  export CHANGELOG_TOKEN=${workspaces[0]?.tokens[0] ?? ''}`,
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
    { command: 'emulator', url: emulator.url, port: emulator.port, workspaces },
  );
  await (options.until ??
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }));
  await emulator.close();
  return EXIT.OK;
}
