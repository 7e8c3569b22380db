/**
 * Workspace binding (docs/sync.md#workspace-binding): a content directory mirrors exactly one
 * workspace, recorded as the identifier in `content/_data/workspace.json`. A token for
 * another workspace is refused before anything is written or sent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChangelogSyncError } from '../core/errors.js';
import type { Workspace } from '../service/schemas.js';

/** Workspace settings, written by pull (Eleventy global data `workspace`). */
export const WORKSPACE_DATA_FILE = '_data/workspace.json';
/** Tags, written by pull (Eleventy global data `tags`). */
export const TAGS_DATA_FILE = '_data/tags.json';

/**
 * Refuses a workspace other than the one the content directory mirrors (none yet when the file
 * is missing or unreadable).
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH`.
 */
export async function assertWorkspaceBinding(contentDir: string, workspace: Workspace): Promise<void> {
  const file = join(contentDir, WORKSPACE_DATA_FILE);
  let bound: { identifier?: unknown; name?: unknown } = {};
  try {
    bound = (JSON.parse(await readFile(file, 'utf8')) as typeof bound | null) ?? {};
  } catch {
    /* missing or unreadable: not bound yet */
  }
  if (typeof bound.identifier === 'string' && bound.identifier && bound.identifier !== workspace.identifier) {
    throw new ChangelogSyncError(
      'E_WORKSPACE_MISMATCH',
      `the token is for workspace "${workspace.name}" (${workspace.identifier}), but ${file} mirrors "${typeof bound.name === 'string' ? bound.name : '?'}" (${bound.identifier})`,
      {
        file,
        field: 'identifier',
        hint: 'use the token of the mirrored workspace, or point CHANGELOG_CONTENT_DIR at another directory; mirrors are never mixed',
      },
    );
  }
}
