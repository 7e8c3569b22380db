/**
 * `changelog-sync latest <workspace-uuid>`: the public latest entry (docs/service-interface.md#endpoints,
 * endpoint 4), no token needed.
 */
import { ChangelogClient } from '../../service/client.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { assertBaseUrl } from '../../core/base-url.js';
import type { Config } from '../../core/config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';

/**
 * Prints the newest published entry of a workspace.
 * @throws {ChangelogSyncError} `E_CONFIG` without a base URL, or with credentials in `--base-url`
 *   (never printed, as for `CHANGELOG_BASE_URL`); `E_NOT_FOUND` for an unknown workspace.
 */
export async function latestCommand(config: Config, reporter: Reporter, workspaceUuid: string, options: { baseUrl?: string } = {}): Promise<ExitCode> {
  const baseUrl = options.baseUrl ?? config.baseUrl;
  if (!baseUrl) {
    throw new ChangelogSyncError('E_CONFIG', 'no service configured: CHANGELOG_BASE_URL is not set', {
      field: 'CHANGELOG_BASE_URL',
      hint: 'set CHANGELOG_BASE_URL or pass --base-url (no token is needed for this command)',
    });
  }
  if (options.baseUrl) assertBaseUrl(options.baseUrl, '--base-url');
  const client = new ChangelogClient({ baseUrl, onWarning: (m) => reporter.warn(m) });
  try {
    const latest = await client.getLatestEntry(workspaceUuid);
    const date = latest.date ? latest.date.slice(0, 10) : 'undated';
    const human = [`${latest.title ?? '(title not exposed by the workspace)'}`, `  uuid: ${latest.uuid}`, `  date: ${date}`];
    if (latest.slug) human.push(`  slug: ${latest.slug}`);
    if (latest.tags?.length) human.push(`  tags: ${latest.tags.join(', ')}`);
    reporter.result(human.join('\n'), { command: 'latest', ...latest });
    return EXIT.OK;
  } finally {
    await client.close();
  }
}
