/**
 * The service's base URL carries no credentials: they would be printed in messages and
 * published in the site's backlink. They belong in `CHANGELOG_TOKEN`, never printed.
 */
import { ChangelogSyncError } from './errors.js';

/**
 * The URL with its user name and password removed (`https://host/`). A text that is not a
 * URL is not shown at all (it may hold a secret the parser could not find).
 */
export function withoutCredentials(url: string): string {
  const u = URL.parse(url);
  if (!u) return '(not shown: not a URL)';
  u.username = '';
  u.password = '';
  return u.href;
}

/**
 * Checks a configured base URL.
 * @param source where it came from, for the message (`CHANGELOG_BASE_URL`, `changelog.config.json: baseUrl`).
 * @throws {ChangelogSyncError} `E_CONFIG` when it is not a URL or has a user name or password (never shown).
 */
export function assertBaseUrl(url: string, source: string, options: { inFile?: boolean } = {}): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new ChangelogSyncError('E_CONFIG', `${source} is not a URL (the value is not shown: it may hold a secret)`, {
      cause,
      field: source,
      hint: 'set it to the service root, e.g. https://changelog.example.com',
    });
  }
  if (parsed.username === '' && parsed.password === '') return;
  throw new ChangelogSyncError(
    'E_CONFIG',
    `${source} contains credentials (a user name or password before "@"): refused, so that they are never printed or published; without them it is ${withoutCredentials(url)}`,
    {
      field: source,
      hint: `remove them from the URL and put the workspace access token in CHANGELOG_TOKEN (in GitHub Actions: a repository secret)${options.inFile ? '; change that password: it is in your repository' : ''}`,
    },
  );
}
