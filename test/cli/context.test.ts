// The networked commands' context (cli/context.ts): the configuration checked, and the
// day's request ledger saved before every request starts (sync/store/budget-ledger.ts), against
// the real emulator over HTTP.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withContext } from '../../src/cli/context.js';
import { loadConfig, type Config } from '../../src/core/config.js';
import { tempDir } from '../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';
import { captureReporter } from '../helpers/process/reporter.js';

let fx: EmulatorFixture;
let dir: string;
let cleanup: () => Promise<void>;
let config: Config;

beforeEach(async () => {
  fx = await emulatorFixture();
  ({ dir, cleanup } = await tempDir());
  config = loadConfig(dir, { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token });
});
afterEach(async () => {
  await fx.close();
  await cleanup();
});

/** Requests the ledger in the state directory counts. */
const counted = async () => (JSON.parse(await readFile(join(config.stateDir, 'budget.json'), 'utf8')) as { ledger: Array<[number, number]> }).ledger.reduce((n, [, c]) => n + c, 0);

describe('withContext', () => {
  it('refuses to start without a base URL or a token, naming the variable', async () => {
    const { reporter } = captureReporter();
    const work = () => Promise.resolve();
    await expect(withContext({ ...config, baseUrl: '' }, reporter, {}, work)).rejects.toMatchObject({ code: 'E_CONFIG', field: 'CHANGELOG_BASE_URL' });
    await expect(withContext({ ...config, token: '' }, reporter, {}, work)).rejects.toMatchObject({ code: 'E_CONFIG', field: 'CHANGELOG_TOKEN' });
  });

  it('has saved every request in the ledger by the time it is answered, concurrent ones too, before close', async () => {
    const { reporter, err } = captureReporter();
    await withContext(config, reporter, {}, async (client) => {
      await client.getWorkspace();
      expect(await counted()).toBe(1);
      await Promise.all(Array.from({ length: 7 }, () => client.listTags()));
      expect(await counted()).toBe(8);
    });
    expect(await counted()).toBe(8);
    expect(err()).toBe('');
  });

  it('a ledger that cannot be saved: warned once, the requests still go, and close says why', async () => {
    const { reporter, err } = captureReporter();
    const ended = withContext(config, reporter, {}, async (client) => {
      // The state directory becomes a file: no save can succeed from now on.
      await rm(config.stateDir, { recursive: true, force: true });
      await writeFile(config.stateDir, 'not a directory');
      await client.getWorkspace();
      await client.listTags();
      expect(err().match(/^warning: cannot save the request ledger: /gm)).toHaveLength(1);
    });
    await expect(ended).rejects.toThrow();
  });
});
