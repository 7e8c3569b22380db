/**
 * The version of changelog-sync that runs (its package.json), for what the tool records
 * about itself: the state format's writer (`sync/store/state-format.ts`), the site's inputs.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './config.js';

let version: string | undefined;

/** The running tool's version, e.g. `0.2.0` (read once from its package.json). */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
