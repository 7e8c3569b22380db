// Preloaded with `node --import` (NODE_OPTIONS) to run the real CLI as if it were later:
// `new Date()` and `Date.now()` are shifted by TEST_CLOCK_SHIFT_MS. The tests' faketime.
const shift = Number(process.env.TEST_CLOCK_SHIFT_MS ?? 0);
const RealDate = Date;
class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shift);
    else super(...args);
  }
  static now() {
    return RealDate.now() + shift;
  }
}
globalThis.Date = ShiftedDate;
