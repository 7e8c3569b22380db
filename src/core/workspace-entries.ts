/**
 * The `workspaces` of `changelog.config.json` (docs/sync.md "Several workspaces"): the schema of
 * an entry, and each entry resolved to its folders, service root and token. `config.ts` reads the
 * file and makes a command's configuration of one workspace (`workspaceConfig`).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { assertBaseUrl } from './base-url.js';
import { ChangelogSyncError } from './errors.js';

/** The pattern of a workspace key: the product's path segment on the site. */
export const WORKSPACE_KEY = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The schema of one entry of `workspaces`. */
export const workspaceSchema = z
  .object({
    title: z.string().min(1).optional().describe("the product's name on the site (default the workspace's name on the service)"),
    baseUrl: z.url().optional().describe('service root of this workspace (default the top-level baseUrl)'),
    tokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable (letters, digits and "_"), e.g. "CHANGELOG_TOKEN_APP"')
      .describe("the environment variable that holds this workspace's access token (never the token itself)"),
  })
  .strict();

/** The fields of one entry of `workspaces` as the file holds them. */
type WorkspaceFields = z.infer<typeof workspaceSchema>;

/** One workspace of `workspaces` (docs/sync.md "Several workspaces"), resolved. Paths are absolute. */
export interface WorkspaceEntry {
  /** The product's path segment ({@link WORKSPACE_KEY}). */
  key: string;
  /** The product's name on the site; undefined: the workspace's name on the service. */
  title: string | undefined;
  /** Its service root: its own `baseUrl`, else the top-level one (`Config.baseUrl`). */
  baseUrl: string | undefined;
  /** The environment variable its token is read from. */
  tokenEnv: string;
  /** Its access token, from `env[tokenEnv]` only. */
  token: string | undefined;
  /** Its mirror: `<contentDir>/<key>`. */
  contentDir: string;
  /** Its state, journal, ledger and conflicts: `<stateDir>/<key>`. */
  stateDir: string;
}

/** The variable a workspace's token is suggested in: `CHANGELOG_TOKEN_<KEY>` (`web-app` → `CHANGELOG_TOKEN_WEB_APP`). */
export function tokenEnvFor(key: string): string {
  return `CHANGELOG_TOKEN_${key.replace(/-/g, '_').toUpperCase()}`;
}

/** A workspace key made of a name that is not one (`My App` → `my-app`). */
export function keyLike(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'app';
}

/** @throws {ChangelogSyncError} `E_CONFIG` for a workspace entry holding a token (before the schema's "not a setting"). */
export function refuseWorkspaceToken(json: unknown, file: string): void {
  const workspaces = (json as { workspaces?: unknown }).workspaces;
  if (!workspaces || typeof workspaces !== 'object') return;
  for (const [key, entry] of Object.entries(workspaces)) {
    if (entry && typeof entry === 'object' && 'token' in entry) {
      throw new ChangelogSyncError('E_CONFIG', `${file}: workspaces.${key}.token: the file contains a token: a workspace's token is read from the environment variable its tokenEnv names, never from a file`, {
        file,
        field: `workspaces.${key}.token`,
        hint: `replace "token" with "tokenEnv": "${tokenEnvFor(key)}" and revoke that token: it is now in your repository`,
      });
    }
  }
}

/**
 * The entries of `workspaces`, in the file's key order, paths under the top-level folders.
 * @param reserved the variables of the tool's own settings (`CHANGELOG_TOKEN`, ...): no workspace's token is read from one.
 * @throws {ChangelogSyncError} `E_CONFIG` when two workspaces read one variable, one reads a
 *   reserved one, or a base URL carries credentials.
 */
export function workspaceEntries(file: Record<string, WorkspaceFields>, top: { baseUrl: string | undefined; contentDir: string; stateDir: string }, env: NodeJS.ProcessEnv, shown: string, reserved: readonly string[]): WorkspaceEntry[] {
  const readers = new Map<string, string>();
  return Object.entries(file).map(([key, w]) => {
    if (reserved.includes(w.tokenEnv)) {
      throw new ChangelogSyncError('E_CONFIG', `${shown}: workspaces.${key}.tokenEnv: ${w.tokenEnv} is a setting of changelog-sync (${w.tokenEnv === 'CHANGELOG_TOKEN' ? 'the token of a project without workspaces' : 'not a token'}): each workspace's token has a variable of its own`, {
        file: shown,
        field: `workspaces.${key}.tokenEnv`,
        hint: `name another variable, e.g. "${tokenEnvFor(key)}"`,
      });
    }
    const other = readers.get(w.tokenEnv);
    if (other !== undefined) {
      throw new ChangelogSyncError('E_CONFIG', `${shown}: workspaces.${key}.tokenEnv: ${w.tokenEnv} is the tokenEnv of workspace "${other}" too: each workspace has its own token (and its own request budget)`, {
        file: shown,
        field: `workspaces.${key}.tokenEnv`,
        hint: `give workspace "${key}" a variable of its own, e.g. "${tokenEnvFor(key)}"`,
      });
    }
    readers.set(w.tokenEnv, key);
    if (w.baseUrl !== undefined) assertBaseUrl(w.baseUrl, `${shown}: workspaces.${key}.baseUrl`, { inFile: true });
    const token = env[w.tokenEnv]?.trim();
    return { key, title: w.title, baseUrl: w.baseUrl ?? top.baseUrl, tokenEnv: w.tokenEnv, token: token === '' ? undefined : token, contentDir: join(top.contentDir, key), stateDir: join(top.stateDir, key) };
  });
}
