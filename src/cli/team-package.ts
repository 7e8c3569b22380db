/**
 * The team's `package.json` as `init` leaves it: changelog-sync by a caret range of the running
 * version (Dependabot moves it, the lock file pins it), and `allowScripts` denying sharp's install
 * script (its prebuilt binary needs none; npm 11.16+ warns of one not named). Only what is missing is added.
 */
import { basename } from 'node:path';
import { ChangelogSyncError } from '../core/errors.js';
import { PACKAGE_NAME } from '../core/project-command.js';

/** What init does to package.json. */
export interface PackagePlan {
  /** The text to write; undefined when nothing is missing. */
  text?: string;
  /** What it adds, for the report (`dependencies.changelog-sync ^1.2.3`, `allowScripts.sharp false`). */
  added: string[];
}

type Manifest = Record<string, unknown> & { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown>; allowScripts?: Record<string, unknown> };

/** A package name npm accepts, from a folder's name: lower case, `a-z0-9._-`, else `changelog`. */
function packageName(root: string): string {
  const name = basename(root).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+|-+$/g, '').slice(0, 214);
  return name || 'changelog';
}

/** The indentation a JSON text uses (its first indented line's), else two spaces. */
function indentOf(text: string): string {
  return /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
}

/**
 * What init writes into `package.json` at `root`.
 * @param current the file's text, undefined when there is none.
 * @param version the running tool's version: the dependency is `^<version>`.
 * @throws {ChangelogSyncError} `E_FILE` when package.json is no JSON object (nothing is written).
 */
export function teamPackage(root: string, current: string | undefined, version: string): PackagePlan {
  const range = `^${version}`;
  if (current === undefined) {
    const manifest = { name: packageName(root), private: true, dependencies: { [PACKAGE_NAME]: range }, allowScripts: { sharp: false } };
    return { text: `${JSON.stringify(manifest, null, 2)}\n`, added: [`dependencies.${PACKAGE_NAME} ${range}`, 'allowScripts.sharp false'] };
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(current) as Manifest;
  } catch (err) {
    throw new ChangelogSyncError('E_FILE', `package.json cannot be read as JSON (${(err as Error).message}): init adds ${PACKAGE_NAME} to its dependencies`, { file: 'package.json', cause: err, hint: 'fix the JSON of package.json (or move it away), then run init again' });
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new ChangelogSyncError('E_FILE', 'package.json is not a JSON object', { file: 'package.json', hint: 'make package.json an object ({ "name": ..., "dependencies": ... }), then run init again' });
  }
  const added: string[] = [];
  const listed = manifest.dependencies?.[PACKAGE_NAME] ?? manifest.devDependencies?.[PACKAGE_NAME];
  if (listed === undefined && manifest.name !== PACKAGE_NAME) {
    manifest.dependencies = { ...(manifest.dependencies ?? {}), [PACKAGE_NAME]: range };
    added.push(`dependencies.${PACKAGE_NAME} ${range}`);
  }
  const scripts = manifest.allowScripts;
  if (scripts === undefined || (typeof scripts === 'object' && scripts !== null && !('sharp' in scripts))) {
    manifest.allowScripts = { ...(scripts ?? {}), sharp: false };
    added.push('allowScripts.sharp false');
  }
  if (added.length === 0) return { added };
  const eol = current.includes('\r\n') ? '\r\n' : '\n';
  const text = `${JSON.stringify(manifest, null, indentOf(current)).replace(/\n/g, eol)}${eol}`;
  return { text, added };
}
