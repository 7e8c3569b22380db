// The disk, settled before a benchmark measures anything that creates many files.
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Waits until creating files runs at this disk's usual speed (at most a minute), and
 * returns the probe's directory (removed at the end with the others). On this machine's
 * disk (ext4 mounted with `discard`) removing many files, as a test run or an earlier
 * benchmark does, slows file creation tenfold for a while afterwards (measured: 10,000
 * files, 2.5 s of system time right after a removal, 0.2-0.4 s otherwise); the benchmarks
 * create 10,000 files (a cold pull, a site), so that would be measured instead. Nothing is removed
 * while probing, so the probe does not cause what it waits out.
 */
export async function settleDisk() {
  const probe = await mkdtemp(join(tmpdir(), 'bench-disk-probe-'));
  const until = Date.now() + 60_000;
  for (let round = 0; ; round++) {
    const dir = join(probe, String(round));
    await mkdir(dir);
    const started = performance.now();
    for (let i = 0; i < 1000; i++) writeFileSync(join(dir, `2026-01-01-probe-${i}.md`), 'x'.repeat(1500));
    const usPerFile = ((performance.now() - started) * 1000) / 1000;
    if (usPerFile < 60 || Date.now() > until) {
      console.error(`disk: ${usPerFile.toFixed(0)} us to create a file (${round + 1} probe${round ? 's' : ''})`);
      return probe;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

