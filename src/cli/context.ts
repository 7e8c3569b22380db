/**
 * What every networked command needs: the configuration, a session with the service
 * (`sync/service-session.ts`: a client whose rate budget carries the persisted daily ledger)
 * whose warnings and requests go to the command's reporter, and a way to save that ledger
 * at the end.
 *
 * @module
 */
import type { ChangelogClient } from '../service/client.js';
import type { Config } from '../core/config.js';
import { openServiceSession } from '../sync/service-session.js';
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

/**
 * Creates the client for a configured service.
 * @throws {ChangelogSyncError} `E_CONFIG` when the base URL or the token is missing (in
 *   GitHub Actions naming the repository secret and variable, see `actions-secrets.ts`).
 */
export async function openContext(config: Config, reporter: Reporter): Promise<CommandContext> {
  // In GitHub Actions: the secret and the variable by name, with their settings page.
  requireServiceInActions(config, reporter);
  const session = await openServiceSession(config, {
    onWarning: (m) => reporter.warn(m),
    onResponse: ({ method, url, status, ms }) => reporter.debug(`${method} ${url} ${status} ${ms}ms`),
  });
  return { config, client: session.client, reporter, close: () => session.close() };
}
