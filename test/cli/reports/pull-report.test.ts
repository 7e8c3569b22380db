// The pull step of `pull` and `dev --pull` (src/cli/reports/pull-report.ts), called directly
// with a client of a service that fails the workspace read and holds the listing and the tags
// (helpers/held-service.ts): the reads it sends before loading the mirror's modules have ended
// when it rejects, so that no request of it is open, booked or written to the ledger after.
import { afterEach, describe, expect, it } from 'vitest';
import { pullWithProgress } from '../../../src/cli/reports/pull-report.js';
import { loadConfig } from '../../../src/core/config.js';
import { ChangelogClient } from '../../../src/service/client.js';
import { useTempDir } from '../../helpers/cli.js';
import { runStoppedByWorkspace, type HeldService } from '../../helpers/held-service.js';
import { captureReporter } from '../../helpers/reporter.js';

describe('pullWithProgress stopped by a failed workspace read', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let service: HeldService | undefined;
  afterEach(async () => service?.close());

  it('rejects once the listing and the tags in flight are closed, never answered', async () => {
    let client!: ChangelogClient;
    const run = await runStoppedByWorkspace((url) => {
      client = new ChangelogClient({ baseUrl: url, token: 't' });
      return pullWithProgress(client, loadConfig(dir, { CHANGELOG_BASE_URL: url, CHANGELOG_TOKEN: 't' }), captureReporter().reporter);
    });
    service = run.service;
    expect(run.outcome).toMatchObject({ status: 'rejected', reason: { code: 'E_AUTH' } });
    expect(run.sent).toEqual(['getWorkspace', 'listEntries', 'listTags']);
    expect(run.pending).toEqual([]);
    expect(client.budget.inFlight).toBe(0);
    expect(await run.siblingsAnswered()).toEqual([false, false]);
    expect(client.budget.sent).toBe(3);
    await client.close();
  });
});
