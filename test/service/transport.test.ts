// The cap on a response's size: the client stops reading a body larger
// than the limit, with E_RESPONSE_TOO_LARGE naming method, URL, limit and the setting.
// Against the emulator over HTTP on port 0, whose oversize-body fault streams a body with
// backpressure and logs how much of it went out; through the library and the pull command
// (run in the test's process as the CLI runs it, helpers/process/command.ts).
// Memory is measured by hand only (see docs/security.md#hostile-input), never asserted here.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import type { RequestLogRecord } from '../../src/emulator/server.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { runCommand } from '../helpers/process/command.js';
import { useTempDir } from '../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';

const MB = 2 ** 20;
let fx: EmulatorFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** The first logged request, once the emulator has finished with it (answered or dropped). */
async function served(f: EmulatorFixture): Promise<RequestLogRecord> {
  const first = f.emu.log[0];
  if (first && first.ms !== undefined) return first;
  const [record] = (await once(f.emu.events, 'response')) as [RequestLogRecord];
  return record;
}

async function failure(p: Promise<unknown>): Promise<ChangelogSyncError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChangelogSyncError);
  return err as ChangelogSyncError;
}

describe('response size cap (client)', () => {
  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    fx = await emulatorFixture({ faults: { oversizeBodyMb: 64 } });
    const err = await failure(fx.client({ maxResponseBytes: 1 * MB }).listEntries());
    expect(err.code).toBe('E_RESPONSE_TOO_LARGE');
    expect(err.status).toBe(200);
    expect(err.message).toContain(`GET ${fx.emu.url}/api/entries: 200`);
    expect(err.message).toContain(`Content-Length ${64 * MB} bytes`);
    expect(err.message).toContain('limit of 1 MB');
    expect(err.hint).toContain('maxResponseMb');
    expect(err.hint).toContain('CHANGELOG_MAX_RESPONSE_MB');
    const record = await served(fx);
    expect(record.dropped).toBe(true);
    expect(record.bytesSent).toBeLessThan(64 * MB);
    expect(fx.emu.log).toHaveLength(1); // not retried: the next answer would be as large
  });

  it('stops a body without Content-Length as soon as the bytes read cross the limit', async () => {
    fx = await emulatorFixture({ faults: { oversizeBodyMb: 64, oversizeBodyChunked: true } });
    const err = await failure(fx.client({ maxResponseBytes: 2 * MB }).listEntries());
    expect(err.code).toBe('E_RESPONSE_TOO_LARGE');
    expect(err.message).toContain(`more than ${2 * MB} bytes read`);
    const record = await served(fx);
    expect(record.dropped).toBe(true);
    expect(record.bytesSent).toBeGreaterThan(2 * MB);
    expect(record.bytesSent).toBeLessThan(64 * MB);
  });

  it('reads a body just under the limit, with and without Content-Length', async () => {
    for (const chunked of [false, true]) {
      fx = await emulatorFixture({ faults: { oversizeBodyMb: 1, oversizeBodyChunked: chunked } });
      expect(await fx.client({ maxResponseBytes: 1 * MB }).listEntries()).toEqual([]);
      expect((await served(fx)).bytesSent).toBe(1 * MB);
      await fx.close();
      fx = undefined;
    }
  });
});

describe('response size cap (CLI)', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });

  it('pull fails with E_RESPONSE_TOO_LARGE under CHANGELOG_MAX_RESPONSE_MB and writes no entry', async () => {
    fx = await emulatorFixture({ faults: { oversizeBodyMb: 32, oversizeBodyChunked: true } });
    const env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token, CHANGELOG_MAX_RESPONSE_MB: '4' };
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_RESPONSE_TOO_LARGE');
    expect(r.stderr).toContain('limit of 4 MB');
    expect(r.stderr).toContain('CHANGELOG_MAX_RESPONSE_MB');
    for (const record of fx.emu.log) expect(record.bytesSent ?? 0).toBeLessThan(32 * MB);
    expect(existsSync(join(dir, 'content/entries'))).toBe(false);
  });

  it('maxResponseMb in changelog.config.json sets the limit; the environment wins', async () => {
    fx = await emulatorFixture({ faults: { oversizeBodyMb: 3 } });
    const env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ maxResponseMb: 2 }));
    const refused = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('limit of 2 MB');
    // 3 MB of whitespace is read, then fails as a listing of nothing: the cap let it through.
    const allowed = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env: { ...env, CHANGELOG_MAX_RESPONSE_MB: '8' } });
    expect(allowed.stderr).not.toContain('E_RESPONSE_TOO_LARGE');
    const bad = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env: { ...env, CHANGELOG_MAX_RESPONSE_MB: 'lots' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('CHANGELOG_MAX_RESPONSE_MB must be a positive number of MB');
  });
});
