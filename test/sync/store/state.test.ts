import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../../src/core/hash.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('contentHash', () => {
  it('is the sha256 of the text with CRLF read as LF, whether given bytes or text', () => {
    const cases: Array<[Buffer, string]> = [
      [Buffer.from('---\ntitle: Café ✓\n---\n\nBody\n'), '---\ntitle: Café ✓\n---\n\nBody\n'],
      [Buffer.from('---\r\ntitle: x\r\n---\r\n\r\nBody\r\n'), '---\ntitle: x\n---\n\nBody\n'],
      // A lone CR is not a line end that git rewrites: kept.
      [Buffer.from('a\rb\n'), 'a\rb\n'],
      // Bytes that are not UTF-8 hash as their decoded text (U+FFFD), as they always have.
      [Buffer.from([0x61, 0xff, 0xfe, 0x0a]), 'a\ufffd\ufffd\n'],
      [Buffer.alloc(0), ''],
    ];
    for (const [bytes, text] of cases) {
      expect(contentHash(bytes)).toBe(sha256(text));
      expect(contentHash(bytes.toString('utf8'))).toBe(sha256(text));
    }
  });
});
