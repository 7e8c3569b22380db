/**
 * A failed run as GitHub Actions shows it: an `::error` annotation and a job summary section with
 * the fix, for every error the top-level handler reports (handle-error.ts). In Actions the fix
 * names repository secrets and variables where locally it names environment variables.
 */
import type { ChangelogSyncError } from '../../core/errors.js';
import { annotation, escapeControl, markdownText } from './github-actions.js';

/** Where a repository's secrets and variables are changed (GitHub's settings page). */
export const ACTIONS_SETTINGS_PAGE = 'Settings > Secrets and variables > Actions';

/** What the run's page shows of one failure. */
export interface ActionsFailure {
  /** The annotation's title: what failed, short. */
  title: string;
  /** The annotation's text: the message, then `Fix: ...`. */
  message: string;
  /** The job summary's section, Markdown (data escaped). */
  summary: string;
}

/** The fix in GitHub Actions of an error whose local fix names an environment variable. */
function actionsHint(err: ChangelogSyncError): string | undefined {
  if (err.code === 'E_AUTH') {
    const refused = err.status === 403 ? 'is refused for this workspace (403 Forbidden)' : err.status === 401 ? 'is not accepted (401 Unauthorized)' : 'is missing or not accepted';
    return `the repository secret CHANGELOG_TOKEN ${refused}: replace it in the repository's ${ACTIONS_SETTINGS_PAGE} ("Update" on CHANGELOG_TOKEN) with a workspace access token, made in the workspace settings of the service that CHANGELOG_BASE_URL names, then run the workflow again`;
  }
  if (err.hint && /\bCHANGELOG_(?:TOKEN|BASE_URL)\b/.test(err.hint)) return `${err.hint} (in GitHub Actions: the repository's ${ACTIONS_SETTINGS_PAGE})`;
  return err.hint;
}

/**
 * The annotation and job summary of an error that stopped a command; its message starts with
 * its file (a defect arrives as `E_INTERNAL`, without a fix).
 */
export function actionsFailure(err: Pick<ChangelogSyncError, 'code' | 'message' | 'hint' | 'status'>): ActionsFailure {
  const hint = err.code === 'E_INTERNAL' ? 'run the command again with --debug for the stack, and please report it' : actionsHint(err as ChangelogSyncError);
  const title = `changelog-sync failed: ${err.code}`;
  const message = `${err.message}${hint ? `. Fix: ${hint}` : ''}`;
  const summary = [
    `### ${title}`,
    '',
    markdownText(err.message),
    '',
    ...(hint ? [`**Fix:** ${markdownText(hint)}`, ''] : []),
  ].join('\n');
  return { title, message, summary };
}

/** The annotation line of a failure (one workflow command). */
export function failureAnnotation(f: ActionsFailure, props: { file?: string; line?: number } = {}): string {
  // The message carries data (a server's words, a file name): no control character reaches the log.
  return annotation('error', escapeControl(f.message), { ...props, title: f.title });
}
