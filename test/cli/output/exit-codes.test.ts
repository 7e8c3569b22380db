// One exit-code ranking, the README's: worstExit against the documented table and order.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT, worstExit, type ExitCode } from '../../../src/cli/output/exit-codes.js';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
/** The README's "Exit codes" section, up to the next heading. */
const SECTION = /^### Exit codes\n([\s\S]*?)\n#/m.exec(README)?.[1] ?? '';
const CODES = Object.values(EXIT);

describe('the exit codes', () => {
  it('are the ones the README table lists, no more, no less', () => {
    const documented = [...SECTION.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(documented.sort()).toEqual([...CODES].sort());
  });

  it('rank as the README says: of any codes, the one documented first among them', () => {
    const order = /(\d), then (\d), then (\d), then (\d)/.exec(SECTION)?.slice(1).map(Number);
    expect(order, 'the order sentence in README "Exit codes"').toBeDefined();
    // Every outcome code is ranked; ok is below them all; usage never combines (it ends a command first).
    expect([...order!].sort()).toEqual([EXIT.ERROR, EXIT.CONFLICT, EXIT.DEFERRED, EXIT.INVALID].sort());
    const outcomes = fc.constantFrom<ExitCode>(EXIT.OK, ...(order as ExitCode[]));
    fc.assert(
      fc.property(fc.array(outcomes, { maxLength: 6 }), (codes) => {
        const expected = order!.find((c) => codes.includes(c as ExitCode)) ?? EXIT.OK;
        expect(worstExit(codes)).toBe(expected);
      }),
    );
  });

  it('ranks the same whatever the order of the outcomes', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...CODES), { maxLength: 6 }), (codes) => {
        expect(worstExit([...codes].reverse())).toBe(worstExit(codes));
        expect(codes.length === 0 ? worstExit(codes) === EXIT.OK : codes.includes(worstExit(codes))).toBe(true);
      }),
    );
  });
});
