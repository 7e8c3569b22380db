/**
 * The content directory's lock: two pushes at once on one content directory must not both send
 * (docs/sync.md#at-most-once). A lock directory `<stateDir>/lock` taken with proper-lockfile
 * (atomic `mkdir`, mtime refreshed while held), and `<stateDir>/lock.json` naming the holder
 * (pid, host, start time, command); a second process fails fast with `E_LOCKED` naming it.
 *
 * A dead holder's lock is recovered: on the same host at once when the process is gone; from
 * another host once its mtime is older than {@link LOCK_STALE_MS}. Fencing (docs/sync.md#fencing):
 * a holder still running on this machine is never taken over, however old its mtime (SIGSTOP, a
 * laptop asleep). The holder records a random token that {@link HeldLock.verify} reads back
 * before each POST, so a process whose lock was taken over sends nothing more.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { isOnThisMachine, isRecordedProcessAlive, thisProcess, type ProcessIdentity } from '../../core/process-alive.js';

/** Name of the lock directory inside the state directory. */
export const LOCK_DIR = 'lock';
/** Name of the holder file inside the state directory. */
export const LOCK_HOLDER_FILE = 'lock.json';
/** A lock not refreshed for this long (ms) is stale, whoever holds it. */
const LOCK_STALE_MS = 30_000;

/** Who holds a lock, as recorded in `lock.json`. */
interface LockHolder extends ProcessIdentity {
  /** ISO time the lock was taken. */
  startedAt: string;
  /** What runs under it, e.g. `push`. */
  command: string;
  /** Inode of the lock directory it belongs to: a holder file left by an earlier lock is not taken for the current one. */
  ino: number;
  /** Random, per lock: who holds it now, read back by {@link HeldLock.verify}. */
  token?: string;
}

/** A held lock. */
export interface HeldLock {
  /** A stale lock that was taken over to get this one, if any. */
  recovered?: LockHolder | { unknown: true };
  /**
   * Whether this process still holds the lock: not compromised, and the holder file still
   * names this lock's token (a cheap local read, made before each POST).
   * @returns why it was lost, or undefined while it is held.
   */
  verify(): Promise<string | undefined>;
  /** Releases the lock (the holder file, then the lock directory); a second call does nothing. */
  release(): Promise<void>;
}

/**
 * Takes the state directory's lock, failing fast when another process (or this one) holds it.
 * Taken over: a holder of this machine that no longer runs, at once; one held elsewhere or not
 * recorded yet, once stale ({@link LOCK_STALE_MS}); never a holder running on this machine
 * ({@link isRecordedProcessAlive}), however old its mtime.
 *
 * @param stateDir the state directory; created when missing.
 * @param command what runs under the lock, for other processes' messages.
 * @throws {ChangelogSyncError} `E_LOCKED` naming a living holder; `E_FILE` when the directory cannot hold a lock.
 */
export async function acquireLock(stateDir: string, command: string): Promise<HeldLock> {
  await mkdir(stateDir, { recursive: true });
  const lockPath = join(stateDir, LOCK_DIR);
  const holderPath = join(stateDir, LOCK_HOLDER_FILE);
  let compromised: Error | undefined;
  const options: lockfile.LockOptions = {
    lockfilePath: lockPath,
    realpath: false, // the lock is `lockfilePath`: the state directory's own path need not be resolved
    retries: 0,
    stale: LOCK_STALE_MS,
    update: 5_000,
    onCompromised: (err) => {
      compromised = err; // proper-lockfile's default throws from a timer and kills the process
    },
  };

  const before = await stat(lockPath).catch(() => undefined);
  const current = before === undefined ? undefined : await readHolder(stateDir);
  let recovered: HeldLock['recovered'];
  if (current && isOnThisMachine(current)) {
    // Never on time alone while its holder lives here (stopped, asleep: not refreshing).
    if (isRecordedProcessAlive(current)) throw lockedError(stateDir, current);
    // Its holder died here: move its lock aside (atomic, so only one of several recovering
    // processes gets it) and take a fresh one.
    const aside = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
    try {
      await rename(lockPath, aside);
    } catch {
      throw lockedError(stateDir, await readHolder(stateDir));
    }
    await rm(aside, { recursive: true, force: true });
    recovered = current;
  } else if (before !== undefined && before.mtimeMs < Date.now() - LOCK_STALE_MS) {
    // Stale now: proper-lockfile takes it over (unless its holder refreshes it first). Say so.
    recovered = current ?? { unknown: true };
  }
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(stateDir, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw lockedError(stateDir, await readHolder(stateDir));
    throw new ChangelogSyncError('E_FILE', `cannot take the lock ${lockPath}: ${(err as Error).message}`, {
      file: lockPath,
      cause: err,
      hint: 'check that the state directory is writable',
    });
  }

  const holder: LockHolder = {
    ...thisProcess(),
    startedAt: new Date().toISOString(),
    command,
    ino: (await stat(lockPath)).ino,
    token: randomBytes(8).toString('hex'),
  };
  await writeFileAtomic(holderPath, `${JSON.stringify(holder, null, 2)}\n`);
  let released = false;
  return {
    recovered,
    verify: async () => {
      if (compromised) return compromised.message;
      const now = await readHolder(stateDir);
      if (now?.token !== holder.token) return now ? `pid ${now.pid} on host "${now.host}" holds it now` : 'its holder file is gone';
      return undefined;
    },
    release: async () => {
      if (released) return;
      released = true;
      await rm(holderPath, { force: true });
      await release().catch(() => undefined); // already released when compromised
    },
  };
}

/** The holder of a content directory's lock, when it is held and the holder file belongs to the current lock directory. */
async function readHolder(stateDir: string): Promise<LockHolder | undefined> {
  let ino: number;
  try {
    ino = (await stat(join(stateDir, LOCK_DIR))).ino;
  } catch {
    return undefined;
  }
  try {
    const h = JSON.parse(await readFile(join(stateDir, LOCK_HOLDER_FILE), 'utf8')) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.host !== 'string' || h.ino !== ino) return undefined;
    const holder: LockHolder = { pid: h.pid, host: h.host, startedAt: String(h.startedAt), command: String(h.command), ino };
    if (typeof h.procStart === 'string') holder.procStart = h.procStart;
    if (typeof h.machine === 'string') holder.machine = h.machine;
    if (typeof h.token === 'string') holder.token = h.token;
    return holder;
  } catch {
    return undefined;
  }
}

function lockedError(stateDir: string, holder: LockHolder | undefined): ChangelogSyncError {
  const who = holder
    ? `pid ${holder.pid} on host "${holder.host}", running \`${holder.command}\` since ${holder.startedAt}`
    : 'a process that has not recorded itself yet (it took the lock a moment ago)';
  return new ChangelogSyncError('E_LOCKED', `another changelog-sync process holds the lock of this content directory: ${who}`, {
    file: join(stateDir, LOCK_DIR),
    hint: `wait for it to finish and run again. A lock left by a process that died is taken over automatically: at once on the same host (never while its process lives, even stopped), after ${LOCK_STALE_MS / 1000} s when it was taken on another host`,
  });
}
