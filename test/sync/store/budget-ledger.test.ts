// The run's request budget bound to budget.json (src/sync/store/budget-ledger.ts): the save
// after a booking and the final save() never write at once, and the final one writes last,
// with every booking. The ledger's writes are watched (and the first one held) through the
// writer it is given, state.ts's saveLedger wrapped; nothing waits on time.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DailyLedger } from '../../../src/service/rate-budget.js';
import { openBudgetLedger } from '../../../src/sync/store/budget-ledger.js';
import { saveLedger } from '../../../src/sync/store/state.js';
import { useTempDir } from '../../helpers/process/cli.js';

/** Each write of the ledger: the requests it counts, and whether another write was under way when it began. */
const writes: Array<{ counted: number; overlapping: boolean }> = [];
/** While set, a write waits for it before writing. */
let hold: Promise<void> | undefined;
let writing = 0;
/** Told of each write as it begins. */
let onWrite: () => void = () => undefined;

/** The ledger's writer: state.ts's, watched, and held while {@link hold} is set. */
const write = async (stateDir: string, ledger: DailyLedger): Promise<boolean> => {
  writes.push({ counted: ledger.reduce((n, [, c]) => n + c, 0), overlapping: writing > 0 });
  writing++;
  onWrite();
  try {
    await hold;
    return await saveLedger(stateDir, ledger);
  } finally {
    writing--;
  }
};

describe('openBudgetLedger', () => {
  let dir = '';
  useTempDir((d) => (dir = d));

  it('save() waits for the save of a booking under way, then writes last, counting every booking', async () => {
    const ledger = await openBudgetLedger({ stateDir: join(dir, '.changelog'), windowMs: 60_000, write });
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    const began = new Promise<void>((resolve) => (onWrite = resolve));
    const first = ledger.budget.acquire(); // books, then saves (held) before the request may start
    await began;
    expect(writes).toHaveLength(1);
    const second = ledger.budget.acquire(); // a booking while that save is held: it shares the next save
    const final = ledger.save();
    hold = undefined;
    release();
    await Promise.all([first, second, final]);
    expect(writes.map((w) => w.overlapping)).toEqual(writes.map(() => false));
    expect(writes.at(-1)).toEqual({ counted: 2, overlapping: false });
    const onDisk = JSON.parse(await readFile(join(dir, '.changelog', 'budget.json'), 'utf8')) as { ledger: DailyLedger };
    expect(onDisk.ledger.reduce((n, [, c]) => n + c, 0)).toBe(2);
  });
});
