/**
 * What every networked command needs: the configuration, a service session (`sync/service-session.ts`,
 * its rate budget carrying the persisted daily ledger) reporting to the command's reporter, and its close.
 */
import type { ChangelogClient } from '../service/client.js';
import { relative } from 'node:path';
import type { Config } from '../core/config.js';
import { openServiceSession, type ServiceSessionOptions } from '../sync/service-session.js';
import type { StateFormatChange } from '../sync/store/state-format.js';
import { requireServiceInActions } from './actions-secrets.js';
import type { Reporter } from './output/reporter.js';

/** A client bound to the configuration, and how to persist its budget. */
export interface CommandContext {
  config: Config;
  client: ChangelogClient;
  reporter: Reporter;
  /**
   * Saves the daily ledger and closes connections. Call once, at the end.
   * @throws the file system's error when the ledger cannot be saved (the connections are closed all the same).
   */
  close(): Promise<void>;
}

/** The line that tells a state format migration (or, for a dry run, that one is due). */
export function formatStateChange(config: Pick<Config, 'root'>, change: StateFormatChange): string {
  const shown = (path: string): string => relative(config.root, path) || path;
  if (change.written.length === 0) return `The state is format ${change.from}: read as it is; the next run that is not a dry run migrates it to format ${change.to}`;
  return `Migrated the state from format ${change.from} to ${change.to}: ${change.written.map(shown).join(', ')}`;
}

/**
 * Creates the client for a configured service, after the state directory's format: an
 * older one is migrated (not by a dry run), a newer one refused (`sync/store/state-format.ts`).
 * @throws {ChangelogSyncError} `E_CONFIG` when the base URL or the token is missing (in
 *   GitHub Actions naming the repository secret and variable, see `actions-secrets.ts`);
 *   `E_STATE_FORMAT` for a state directory of a newer format, before anything is written.
 */
export async function openContext(config: Config, reporter: Reporter, options: ServiceSessionOptions = {}): Promise<CommandContext> {
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
  return { config, client: session.client, reporter, close: () => session.close() };
}
