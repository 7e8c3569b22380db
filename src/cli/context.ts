/**
 * What every networked command runs in: a service session (`sync/service-session.ts`, its rate
 * budget carrying the persisted daily ledger) reporting to the command's reporter, closed at the end.
 */
import type { ChangelogClient } from '../service/client.js';
import { relative } from 'node:path';
import type { Config } from '../core/config.js';
import { openServiceSession, type ServiceSessionOptions } from '../sync/service-session.js';
import type { StateFormatChange } from '../sync/store/state-format.js';
import { requireServiceInActions } from './actions-secrets.js';
import type { Reporter } from './output/reporter.js';

/** The line that tells a state format migration (or, for a dry run, that one is due). */
export function formatStateChange(config: Pick<Config, 'root'>, change: StateFormatChange): string {
  const shown = (path: string): string => relative(config.root, path) || path;
  if (change.written.length === 0) return `The state is format ${change.from}: read as it is; the next run that is not a dry run migrates it to format ${change.to}`;
  return `Migrated the state from format ${change.from} to ${change.to}: ${change.written.map(shown).join(', ')}`;
}

/**
 * Runs `work` with the client for a configured service, after the state directory's format: an
 * older one is migrated (not by a dry run), a newer one refused (`sync/store/state-format.ts`).
 * The daily ledger is saved and the connections closed when `work` ends, however it ends.
 * @throws {ChangelogSyncError} `E_CONFIG` when the base URL or the token is missing (in
 *   GitHub Actions naming the repository secret and variable, see `actions-secrets.ts`);
 *   `E_STATE_FORMAT` for a state directory of a newer format, before anything is written;
 *   what `work` throws; else the file system's error when the ledger cannot be saved.
 */
export async function withContext<T>(config: Config, reporter: Reporter, options: ServiceSessionOptions, work: (client: ChangelogClient) => Promise<T>): Promise<T> {
  // In GitHub Actions: the secret and the variable by name, with their settings page.
  requireServiceInActions(config, reporter);
  const session = await openServiceSession(
    config,
    {
      onWarning: (m) => reporter.warn(m),
      onResponse: ({ method, url, status, ms }) => reporter.debug(`${method} ${url} ${status} ${ms}ms`),
      onStateFormat: (change) => reporter.info(formatStateChange(config, change)),
    },
    options,
  );
  try {
    return await work(session.client);
  } finally {
    await session.close();
  }
}
