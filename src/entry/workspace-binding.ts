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

/** The identifier of the workspace the content directory mirrors, if it mirrors one yet. */
async function boundWorkspace(contentDir: string): Promise<{ identifier: string; name?: string } | undefined> {
  try {
    const json = JSON.parse(await readFile(join(contentDir, WORKSPACE_DATA_FILE), 'utf8')) as { identifier?: unknown; name?: unknown };
    if (typeof json.identifier === 'string' && json.identifier) {
      return { identifier: json.identifier, name: typeof json.name === 'string' ? json.name : undefined };
    }
  } catch {
    /* missing or unreadable: not bound yet */
  }
  return undefined;
}

/**
 * Refuses a workspace other than the one the content directory mirrors.
 * @throws {ChangelogSyncError} `E_WORKSPACE_MISMATCH`.
 */
export async function assertWorkspaceBinding(contentDir: string, workspace: Workspace): Promise<void> {
  const bound = await boundWorkspace(contentDir);
  if (bound && bound.identifier !== workspace.identifier) {
    throw new ChangelogSyncError(
      'E_WORKSPACE_MISMATCH',
      `the token is for workspace "${workspace.name}" (${workspace.identifier}), but ${join(contentDir, WORKSPACE_DATA_FILE)} mirrors "${bound.name ?? '?'}" (${bound.identifier})`,
      {
        file: join(contentDir, WORKSPACE_DATA_FILE),
        field: 'identifier',
        hint: 'use the token of the mirrored workspace, or point CHANGELOG_CONTENT_DIR at another directory; mirrors are never mixed',
      },
    );
  }
}
