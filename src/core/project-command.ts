/**
 * How a message names a command of changelog-sync for the project it runs in. A team that
 * installed the package runs it as `npx changelog-sync <command>`; only changelog-sync's own
 * repository has `npm start` (which, anywhere else, starts the team's own application).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package's name (package.json). */
export const PACKAGE_NAME = 'changelog-sync';

/** True when `root` is changelog-sync's own repository (its package.json names it). */
function isOwnRepository(root: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/**
 * The command that runs `changelog-sync <args>` (`push --dry-run`) in the project at `root`, for a
 * message: `npx changelog-sync <args>`; in changelog-sync's own repository `npm start` for `sync`,
 * `node dist/cli.js <args>` otherwise.
 */
export function commandLine(root: string, args: string): string {
  if (!isOwnRepository(root)) return `npx ${PACKAGE_NAME} ${args}`;
  return args === 'sync' ? 'npm start' : `node dist/cli.js ${args}`;
}
