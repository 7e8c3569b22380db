/**
 * Failpoints: named checkpoints where a crash test makes the process kill itself
 * (docs/sync.md#push-guarantees), so crash tests are deterministic.
 *
 * `CHANGELOG_FAILPOINT=name[:n]` (`push:after-post:3`) sends the process SIGKILL the `n`th time
 * (default the first) it reaches `name`: no `finally` or exit handler runs, as when a runner is
 * cancelled. Unset, a checkpoint is one comparison. With `CHANGELOG_FAILPOINT_ERRNO=CODE`
 * (`ENOSPC`, `EACCES`, ...) the checkpoint throws that system error instead, at the chosen pass
 * and every later one (a disk that stays full). With `CHANGELOG_FAILPOINT_STOP=1` it sends
 * SIGSTOP: the process keeps what it holds (a lock) until SIGCONT
 * (test/e2e/sync/sync-one-job.test.ts).
 *
 * The kill matrix (test/e2e/sync/kill-matrix.test.ts) kills at each of {@link FAILPOINTS} and
 * resumes with `sync`; a test fails when code and list disagree.
 */
import { constants } from 'node:os';
import { getSystemErrorMap } from 'node:util';

/** Every checkpoint, by area. A crash at any of them must leave a state the next run repairs. */
export const FAILPOINTS = [
  // pull
  'pull:after-plan',
  'pull:before-write',
  'pull:after-write',
  'pull:mid-rename',
  'pull:after-rename',
  'pull:before-adopt-write',
  'pull:after-adopt-write',
  'pull:before-data-write',
  'pull:before-state-save',
  'pull:after-state-save',
  // recovery before pull writes (recovery.ts, duplicate-repair.ts)
  'recovery:before-bind',
  'recovery:after-bind',
  'recovery:after-journal-remove',
  'recovery:before-adopt',
  'recovery:after-adopt',
  'repair:before-remove',
  'repair:before-park',
  'repair:after-park',
  // push
  'push:after-plan',
  'push:before-post',
  'push:after-post',
  'push:after-journal-created',
  'push:after-write-back',
  'push:after-journal-remove',
  'push:before-state-save',
  'push:after-state-save',
  // write-back of an identifier (write-back.ts)
  'write-back:tmp-created',
  // journal and state files
  'journal:before-flush',
  'journal:tmp-created',
  'journal:after-flush',
  'state:tmp-created',
  'state:after-save',
  // state format migration (sync/store/state-format.ts): after each file but state.json, written last
  'state-format:after-file',
  // sync
  'sync:after-pull',
  'sync:after-push',
  // build: after the first batch of bodies rendered (site-data.ts)
  'build:mid-bodies',
] as const;

/** A checkpoint name. */
export type FailpointName = (typeof FAILPOINTS)[number];

const spec = parse(process.env.CHANGELOG_FAILPOINT);
const errno = process.env.CHANGELOG_FAILPOINT_ERRNO?.trim() || undefined;
const stop = process.env.CHANGELOG_FAILPOINT_STOP === '1';
let reached = 0;

/** A system error as Node.js makes one for a failed `write`: `code`, `errno`, `syscall`, and libuv's wording of it. */
function systemError(code: string, at: string): Error {
  const errno = -((constants.errno as Record<string, number>)[code] ?? 0);
  const err = new Error(`${code}: ${getSystemErrorMap().get(errno)?.[1] ?? `injected at failpoint ${at}`}, write`) as Error & { code: string; errno: number; syscall: string };
  err.code = code;
  err.errno = errno;
  err.syscall = 'write';
  return err;
}

function parse(value: string | undefined): { name: string; n: number } | undefined {
  if (!value) return undefined;
  const m = /^(.*?)(?::(\d+))?$/.exec(value.trim())!;
  return { name: m[1]!, n: m[2] ? Math.max(1, Number(m[2])) : 1 };
}

/**
 * A checkpoint: SIGKILL (SIGSTOP with `CHANGELOG_FAILPOINT_STOP=1`) when `CHANGELOG_FAILPOINT`
 * names it and this is the chosen pass; else nothing.
 * @throws the system error of `CHANGELOG_FAILPOINT_ERRNO`, when set, instead of killing (from the chosen pass on).
 */
export function failpoint(name: FailpointName): void {
  if (spec === undefined || spec.name !== name) return;
  if (++reached < spec.n) return;
  if (errno) throw systemError(errno, name);
  process.kill(process.pid, stop ? 'SIGSTOP' : 'SIGKILL');
}
