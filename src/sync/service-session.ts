/**
 * A session with the configured service: a client whose rate budget carries the persisted
 * daily ledger (`store/budget-ledger.ts`), and a way to save that ledger at the end. What
 * every networked job needs, whoever runs it: the CLI's commands (`cli/context.ts` adds the
 * reporter) and the library (`index.ts`).
 */
import { ChangelogClient, type ClientOptions } from '../service/client.js';
import { commandLine } from '../core/project-command.js';
import { ChangelogSyncError } from '../core/errors.js';
import type { Config } from '../core/config.js';
import { openBudgetLedger } from './store/budget-ledger.js';
import { openStateFormat, type StateFormatChange } from './store/state-format.js';

/** A client bound to the configuration, and how to persist its budget. */
export interface ServiceSession {
  client: ChangelogClient;
  /**
   * Saves the daily ledger and closes connections. Call once, at the end.
   * @throws the file system's error when the ledger cannot be saved (the connections are closed all the same).
   */
  close(): Promise<void>;
}

/** Where a session's warnings and request records go. */
export interface ServiceSessionHooks {
  /** A warning: a ledger that cannot be saved, a rate-limit header that does not parse. */
  onWarning?: (message: string) => void;
  /** Each answered request (method, URL, status, milliseconds), e.g. for `--verbose`. */
  onResponse?: ClientOptions['onResponse'];
  /** The state directory was migrated from an older state format (or, for a dry run, is due to be). */
  onStateFormat?: (change: StateFormatChange) => void;
}

/** What a session's job does with the state directory. */
export interface ServiceSessionOptions {
  /** True for a dry run: an older state format is not migrated (nothing is written but the request ledger). */
  dryRun?: boolean;
}

/**
 * Opens a session with the configured service, after the state format (`store/state-format.ts`):
 * a newer one is refused before any write (ledger included), an older one migrated (not by a dry run).
 * @throws {ChangelogSyncError} `E_CONFIG` when the base URL or token is missing; `E_STATE_FORMAT`.
 */
export async function openServiceSession(config: Config, hooks: ServiceSessionHooks = {}, options: ServiceSessionOptions = {}): Promise<ServiceSession> {
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
  const change = await openStateFormat(config.stateDir, { migrate: !options.dryRun, root: config.root });
  if (change) hooks.onStateFormat?.(change);
  const ledger = await openBudgetLedger({
    stateDir: config.stateDir,
    windowMs: config.rateWindowMs,
    onSaveError: (err) => hooks.onWarning?.(`cannot save the request ledger: ${err.message}`),
  });
  const client = new ChangelogClient({
    baseUrl: config.baseUrl,
    token: config.token,
    budget: ledger.budget,
    timeoutMs: config.requestTimeoutMs,
    maxResponseBytes: config.maxResponseMb * 2 ** 20,
    onWarning: (m) => hooks.onWarning?.(m),
    onResponse: hooks.onResponse,
  });
  return {
    client,
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
