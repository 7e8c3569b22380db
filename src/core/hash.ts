/**
 * The one content hash of changelog-sync: SHA-256, hex. Entry files (mirror), the build
 * cache's keys and fingerprints, the page keys and the search archive all use it.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, hash } from 'node:crypto';

/** SHA-256 (hex) of a string's UTF-8 bytes or of bytes. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The hash pull records for a file (docs/sync.md#sync-state): sha256 with CRLF read as LF, so a
 * `core.autocrlf` checkout is no edit of every file.
 */
export function contentHash(raw: string | Buffer): string {
  // Bytes that are valid UTF-8 without a CR hash as they are: the same digest as their
  // text, without decoding and re-encoding every file of a no-op pull.
  if (typeof raw !== 'string' && raw.indexOf(13) === -1 && isUtf8(raw)) return hash('sha256', raw, 'hex');
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  return hash('sha256', text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text, 'hex');
}
