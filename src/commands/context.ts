/**
 * What every networked command needs: the configuration, a client whose rate budget
 * carries the persisted daily ledger, and a way to save that ledger at the end.
 *
 * @module
 */
import { ChangelogClient } from '../api/client.js';
import { commandLine } from '../project-command.js';
import { ChangelogSyncError } from '../errors.js';
import { RateBudget } from '../api/rate-budget.js';
import type { Config } from '../config.js';
import { loadLedger, saveLedger } from '../mirror/state.js';
import type { Reporter } from '../output/reporter.js';

/** A client bound to the configuration, and how to persist its budget. */
export interface CommandContext {
  config: Config;
  client: ChangelogClient;
  reporter: Reporter;
  /** Saves the daily ledger and closes connections. Call once, at the end. */
  close(): Promise<void>;
}

/**
 * Creates the client for a configured service.
 * @throws {ChangelogSyncError} `E_CONFIG` when the base URL or the token is missing.
 */
export async function openContext(config: Config, reporter: Reporter): Promise<CommandContext> {
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
  // The daily ledger is saved before every request starts, not only at the end: a run
  // that is killed must not let the next one believe the day is less spent than it is.
  // Requests booked while a save runs share the next one.
  let warned = false;
  let queued: Promise<void> | undefined;
  let running: Promise<void> = Promise.resolve();
  const persistLedger = (): Promise<void> => {
    queued ??= running.then(async () => {
      queued = undefined;
      await saveLedger(config.stateDir, budget.toLedger()).catch((err: Error) => {
        if (!warned) reporter.warn(`cannot save the request ledger: ${err.message}`);
        warned = true;
      });
    });
    running = queued;
    return queued;
  };
  const budget: RateBudget = new RateBudget({ ledger: await loadLedger(config.stateDir), windowMs: config.rateWindowMs, onBook: persistLedger });
  const client = new ChangelogClient({
    baseUrl: config.baseUrl,
    token: config.token,
    budget,
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
      await saveLedger(config.stateDir, budget.toLedger());
      await client.close();
    },
  };
}
