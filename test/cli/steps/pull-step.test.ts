// The pull step of `pull` and `dev --pull` (src/cli/steps/pull-step.ts), called directly
// with a client of a service that fails the workspace read and holds the listing and the tags
// (helpers/service/held-service.ts): the reads it sends before loading the mirror's modules have ended
// when it rejects, so that no request of it is open, booked or written to the ledger after.
import { afterEach, describe, expect, it } from 'vitest';
import { pullWithProgress } from '../../../src/cli/steps/pull-step.js';
import { loadConfig } from '../../../src/core/config.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { runStoppedByWorkspace, type StoppedJob } from '../../helpers/service/held-service.js';
import { captureReporter } from '../../helpers/process/reporter.js';

describe('pullWithProgress stopped by a failed workspace read', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  let run: StoppedJob<unknown> | undefined;
  afterEach(async () => run?.close());

  it('rejects once the listing and the tags in flight are closed, never answered', async () => {
    const config = (url: string) => loadConfig(dir, { CHANGELOG_BASE_URL: url, CHANGELOG_TOKEN: 't' });
    run = await runStoppedByWorkspace((client, url) => pullWithProgress(client, config(url), captureReporter().reporter));
    expect(run.outcome).toMatchObject({ status: 'rejected', reason: { code: 'E_AUTH' } });
    expect(run.ended).toEqual({ sent: ['getWorkspace', 'listEntries', 'listTags'], pending: [], inFlight: 0, booked: 3 });
    expect(await run.siblingsAnswered()).toEqual([false, false]);
  });
});
