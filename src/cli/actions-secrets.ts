/**
 * No demo in GitHub Actions (docs/github-actions.md "No demo in Actions"): a job without the secret
 * `CHANGELOG_TOKEN` or the variable `CHANGELOG_BASE_URL` fails before anything is read or written,
 * naming what is missing and its settings page in an `::error::` annotation and the job summary.
 * Outside Actions, with neither set, `sync` runs the demo.
 */
import type { Config } from '../core/config.js';
import { ChangelogSyncError } from '../core/errors.js';
import { ACTIONS_SETTINGS_PAGE } from './output/handle-error.js';
import { annotation } from './output/github-actions.js';
import type { Reporter } from './output/reporter.js';

/**
 * In GitHub Actions, refuses to go on without the secret and the variable: an `::error::` annotation
 * and job summary naming each and {@link ACTIONS_SETTINGS_PAGE} (and the workspace, for one of
 * several: its secret must also be listed in the scheduled workflow's `workspace-secrets`), then throws.
 * @throws {ChangelogSyncError} `E_CONFIG`, its `field` the missing names (exit 1).
 */
export function requireServiceInActions(config: Config, reporter: Reporter): void {
  if (!reporter.actions) return;
  // What the configuration lacks to reach the service (the base URL may come from changelog.config.json), each with what to add.
  const missing = [
    ...(config.token ? [] : [{ name: config.workspace?.tokenEnv ?? 'CHANGELOG_TOKEN', kind: 'secret', what: 'a workspace access token (from the workspace settings of the service): "New repository secret"' }]),
    ...(config.baseUrl ? [] : [{ name: 'CHANGELOG_BASE_URL', kind: 'variable', what: 'the service root, e.g. https://changelog.example.com: the "Variables" tab, "New repository variable"' }]),
  ];
  if (missing.length === 0) return;
  const names = missing.map((m) => `the repository ${m.kind} ${m.name}`).join(' and ');
  // One workspace of several: its failure alone, the others sync (src/cli/workspaces.ts).
  const key = config.workspace?.key;
  const outcome = key === undefined ? 'nothing was synced, written, built or deployed' : `workspace "${key}" was not synced (its last mirror is kept; the other workspaces sync and the site is built)`;
  const message = `${key === undefined ? '' : `workspace "${key}": `}${names} ${missing.length > 1 ? 'are' : 'is'} not set: in GitHub Actions changelog-sync does not run the demo, so ${outcome}`;
  // The scheduled workflow hands the sync only the secrets its call lists (docs/github-actions.md).
  const listed = key === undefined || config.token ? '' : `, and list ${config.workspace!.tokenEnv} under "workspace-secrets:" of .github/workflows/changelog.yml (\`changelog-sync init --workspace ${key}\` writes both lines)`;
  const hint = `add ${missing.length > 1 ? 'them' : 'it'} in the repository's ${ACTIONS_SETTINGS_PAGE}: ${missing.map((m) => `${m.name}, ${m.what}`).join('; ')}${listed}; then run the workflow again (README: "Running it in GitHub Actions")`;
  reporter.failure(
    annotation('error', `${message}. Fix: ${hint}`, { title: `changelog-sync is not set up${key === undefined ? '' : ` for workspace "${key}"`}` }),
    [
      `### changelog-sync is not set up${key === undefined ? ': nothing was synced, built or deployed' : ` for workspace "${key}": it was not synced`}`,
      '',
      `Add ${missing.length > 1 ? 'these' : 'this'} in the repository's **${ACTIONS_SETTINGS_PAGE}**, then run the workflow again:`,
      '',
      ...missing.map((m) => `- the repository ${m.kind} \`${m.name}\`: ${m.what}${m.kind === 'secret' ? listed : ''}`),
      '',
    ].join('\n'),
  );
  throw new ChangelogSyncError('E_CONFIG', message, { field: missing.map((m) => m.name).join(', '), hint });
}
