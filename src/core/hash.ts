/**
 * The one content hash of changelog-sync: SHA-256, hex. Entry files (mirror), the build
 * cache's keys and fingerprints, the page keys and the search archive all use it.
 *
 * @module
 */
import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a string's UTF-8 bytes or of bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
