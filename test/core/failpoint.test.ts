// The failpoint registry (src/core/failpoint.ts) and the code agree: every name the code uses
// is registered (so the kill matrix, which has a case per registered name, covers it), and
// every registered name is used somewhere.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAILPOINTS } from '../../src/core/failpoint.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('failpoints', () => {
  it('the names used in src/ are exactly the registered ones, at least 30', async () => {
    const used = new Set<string>();
    for (const rel of await readdir(SRC, { recursive: true })) {
      if (!rel.endsWith('.ts') || rel === join('core', 'failpoint.ts')) continue;
      const text = await readFile(join(SRC, rel), 'utf8');
      for (const m of text.matchAll(/\bfailpoint\(\s*(['"`])([^'"`]+)\1\s*\)/g)) used.add(m[2]!);
    }
    expect([...used].sort()).toEqual([...FAILPOINTS].sort());
    expect(new Set(FAILPOINTS).size).toBe(FAILPOINTS.length);
    expect(FAILPOINTS.length).toBeGreaterThanOrEqual(30);
  });
});
