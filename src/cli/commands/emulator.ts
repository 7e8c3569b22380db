/**
 * `changelog-sync emulator [--port N] [--seed demo|FILE] [limits] [faults] [--request-log FILE]`:
 * the service emulator as a long-running process, until Ctrl-C. Faults and the request
 * log are the same as tests use (`EmulatorFaults`, `RequestLogRecord`). It prints the variables
 * a project sets to reach it: `CHANGELOG_TOKEN` (the first workspace's token) for a project of
 * one; with several (the demo seed's two products), also a `CHANGELOG_TOKEN_<KEY>` each and the
 * `workspaces` naming them.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { keyLike, tokenEnvFor } from '../../core/workspace-entries.js';
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
  const keys = workspaceKeys(store);
  const workspaces = store.workspaces.map((w, i) => ({ identifier: w.info.identifier, name: w.info.name, tokens: w.tokens, ...(keys && { key: keys[i]!, tokenEnv: tokenEnvFor(keys[i]!) }) }));
  reporter.result(
    [
      `Emulator listening on ${emulator.url}`,
      ...workspaces.map((w) => `  workspace "${w.name}" ${w.identifier}: token ${w.tokens.join(', ')}`),
      '',
      `  export CHANGELOG_BASE_URL=${emulator.url}`,
      `  export CHANGELOG_TOKEN=${workspaces[0]?.tokens[0] ?? ''}`,
      ...(keys
        ? [
            '',
            `  or, for a project of several workspaces (changelog.config.json ${JSON.stringify({ workspaces: Object.fromEntries(keys.map((key): [string, { tokenEnv: string }] => [key, { tokenEnv: tokenEnvFor(key) }])) })}):`,
            ...keys.map((key, i) => `  export ${tokenEnvFor(key)}=${workspaces[i]!.tokens[0]}`),
          ]
        : []),
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

/**
 * The workspaces' keys in a project's `workspaces` when the emulator serves several (a project
 * of one reads `CHANGELOG_TOKEN`): the seed's, else made of each name (`keyLike`), a repeated one
 * numbered (`-2`); undefined for one workspace.
 */
function workspaceKeys(store: EmulatorStore): string[] | undefined {
  if (store.workspaces.length < 2) return undefined;
  const taken = new Set<string>();
  return store.workspaces.map((w) => {
    const base = w.key ?? keyLike(w.info.name);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
    taken.add(key);
    return key;
  });
}
