/**
 * Progress bars (cli-progress) for work that takes over a second: shown on a TTY only,
 * and only once the work has lasted a second, so quick runs print no bar at all.
 */
import cliProgress from 'cli-progress';

/** Delay before a bar appears, ms. */
const SHOW_AFTER_MS = 1000;

/** One bar. Call {@link tick} as work completes and {@link stop} at the end. */
export class Progress {
  private bar: cliProgress.SingleBar | undefined;
  private done = 0;
  private readonly started = Date.now();

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly label: string,
    private readonly total: number,
    private readonly enabled: boolean,
  ) {}

  /** Marks `n` more items done. */
  tick(n = 1): void {
    this.done += n;
    if (!this.enabled) return;
    if (!this.bar && Date.now() - this.started >= SHOW_AFTER_MS) {
      this.bar = new cliProgress.SingleBar(
        { stream: this.stream, format: `${this.label} [{bar}] {value}/{total} {eta_formatted}`, hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(this.total, this.done);
    }
    this.bar?.update(this.done);
  }

  /** True while the bar is on screen (lines written meanwhile would break it). */
  get visible(): boolean {
    return this.bar !== undefined;
  }

  /** Removes the bar. */
  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
