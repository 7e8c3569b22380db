/**
 * The request budget of a run, bound to the daily ledger persisted in the state
 * directory (`budget.json`, see `state.ts`): loaded at the start, saved before every
 * request starts, and saved once more at the end.
 */
import { RateBudget } from '../../service/rate-budget.js';
import { loadLedger, saveLedger } from './state.js';
import { writeQueue } from '../../core/write-queue.js';

/** Options of {@link openBudgetLedger}. */
export interface BudgetLedgerOptions {
  /** The state directory holding `budget.json`. */
  stateDir: string;
  /** Length of the per-minute window in ms (see {@link RateBudget}). */
  windowMs: number;
  /**
   * Told, once per run, that a save before a request failed (the request still starts:
   * the final {@link BudgetLedger.save} reports its own failure by throwing).
   */
  onSaveError?: (err: Error) => void;
  /** How the ledger is written (default `saveLedger` of state.ts); a test watches or holds the writes with its own. */
  write?: typeof saveLedger;
}

/** A budget and how to save its ledger. */
export interface BudgetLedger {
  budget: RateBudget;
  /**
   * Saves the ledger as it is once the saves before requests that are under way or queued
   * have finished: its write is the last, and holds every booking made until it starts.
   * @throws the file system's error.
   */
  save(): Promise<void>;
}

/**
 * Loads the daily ledger and returns a budget that saves it after every booking, before the
 * request starts: a killed run must not let the next believe the day less spent. One save at a
 * time; bookings made meanwhile share the next, so a burst costs at most two writes.
 */
export async function openBudgetLedger(options: BudgetLedgerOptions): Promise<BudgetLedger> {
  const { stateDir, onSaveError, write = saveLedger } = options;
  let warned = false;
  const save = writeQueue(() => write(stateDir, budget.toLedger()));
  const persist = (): Promise<void> =>
    save().catch((err: Error) => {
      if (!warned) onSaveError?.(err);
      warned = true;
    });
  const budget: RateBudget = new RateBudget({ ledger: await loadLedger(stateDir), windowMs: options.windowMs, onBook: persist });
  // One write at a time: two at once would leave whichever renamed last, and that may be the
  // one that read the ledger first.
  return { budget, save };
}
