/**
 * What every networked command needs: the configuration, a client whose rate budget
 * carries the persisted daily ledger (`mirror/budget-ledger.ts`), and a way to save that
 * ledger at the end.
 *
 * @module
 */
import { ChangelogClient } from '../../service/client.js';
import { requireServiceInActions } from './actions-secrets.js';
import { commandLine } from '../../core/project-command.js';
import { ChangelogSyncError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import { openBudgetLedger } from '../../sync/store/budget-ledger.js';
import type { Reporter } from '../output/reporter.js';

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
  if (!config.baseUrl) {
    throw new ChangelogSyncError('E_CONFIG', 'no service configured: CHANGELOG_BASE_URL is not set', {
      field: 'CHANGELOG_BASE_URL',
      hint: `set CHANGELOG_BASE_URL and CHANGELOG_TOKEN, or run \`${commandLine(config.root, 'sync')}\` (sync against the built-in emulator), or start \`${commandLine(config.root, 'emulator')}\` and point CHANGELOG_BASE_URL at it`,
    });
  }
  if (!config.token) {
    throw new ChangelogSyncError('E_CONFIG', 'CHANGELOG_TOKEN is not set', {
      field: 'CHANGELOG_TOKEN',
      hint: 'create a workspace access token in the workspace settings and export it as CHANGELOG_TOKEN (in GitHub Actions: a repository secret)',
    });
  }
  const ledger = await openBudgetLedger({
    stateDir: config.stateDir,
    windowMs: config.rateWindowMs,
    onSaveError: (err) => reporter.warn(`cannot save the request ledger: ${err.message}`),
  });
  const client = new ChangelogClient({
    baseUrl: config.baseUrl,
    token: config.token,
    budget: ledger.budget,
    timeoutMs: config.requestTimeoutMs,
    maxResponseBytes: config.maxResponseMb * 2 ** 20,
    onWarning: (m) => reporter.warn(m),
    onResponse: ({ method, url, status, ms }) => reporter.debug(`${method} ${url} ${status} ${ms}ms`),
  });
  return {
    config,
    client,
    reporter,
    async close() {
      // The connections close even when the last save fails (its error is thrown).
      try {
        await ledger.save();
      } finally {
        await client.close();
      }
    },
  };
}
