/**
 * The push lease (docs/sync.md#the-push-lease): one pusher at a time across every clone, held
 * on what they share, the git remote. The lock (`lock.ts`) covers one content directory; the
 * lease covers a writer's laptop and the scheduled job alike. One rule on every machine:
 *
 * - **Take.** A push with something to send takes the lease (`lease-ref.ts`: a ref written by
 *   compare-and-swap) before it reads the listing; held by another, it polls until released,
 *   and the listing then shows what the other created (adopted, never sent again).
 * - **Expiry, without trusting clocks.** The holder renews every third of its time to live and
 *   records that time. Another process takes over once it has seen the same lease commit
 *   unrenewed for the whole recorded lifetime by its own clock, or at once when the holder ran
 *   on this machine and is gone. A record beyond {@link MAX_LEASE_TTL_MS} is refused
 *   (`E_LEASE`); one without a lifetime is waited for that long. After a takeover it waits the
 *   longer of the holder's recorded in-doubt time (60 s when none) and its own before reading
 *   the listing, unless the dead holder pushed from this very directory (its journal tells).
 * - **Fencing.** Before each POST the holder checks the ref is still its commit
 *   ({@link PushLease.verify}); with the remote out of reach it sends only while its last
 *   renewal is younger than two thirds of its time to live, renewing first when older.
 * - **Remote.** No git repository or no `origin`: the guarantee is per directory (the lock's).
 *   An `origin` that cannot be read or written: `E_LEASE`, unless `--no-lease`.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { abortable } from '../../core/abortable.js';
import { MAX_LEASE_TTL_MS } from '../../core/config.js';
import { ChangelogSyncError } from '../../core/errors.js';
import { deleteLease, findLeaseRemote, LEASE_REF, readLease, readLeaseOid, writeLease, type LeaseRecord, type LeaseRemote, type SeenLease } from './lease-ref.js';
import { isOnThisMachine, isRecordedProcessAlive, thisProcess } from '../../core/process-alive.js';

/** Default time to live of the lease, ms. */
const DEFAULT_LEASE_TTL_MS = 60_000;

/** The in-doubt time of a holder whose record names none, ms: twice the default request timeout. */
const LEGACY_IN_DOUBT_MS = 60_000;

/** Options of {@link takePushLease}. */
export interface LeaseOptions {
  /** The content directory (absolute): where git is asked for the repository. */
  dir: string;
  /** The git remote every clone shares. Default `origin`. */
  remote?: string;
  /** The lease's ref on it (`lease-ref.ts`' `leaseRef`: one per workspace). Default {@link LEASE_REF}. */
  ref?: string;
  /**
   * The environment git runs with: the run's (`Config.env`, the CLI's process's, read at its
   * entry), for PATH, HOME and the remote's credentials. Default: none but git's own settings.
   */
  env?: NodeJS.ProcessEnv;
  /** Time to live of the lease, ms (renewed every third of it; at most {@link MAX_LEASE_TTL_MS}). Default {@link DEFAULT_LEASE_TTL_MS}. */
  ttlMs?: number;
  /** How long a POST that got no answer may still be processed by the service, ms (push's in-doubt time). */
  inDoubtMs: number;
  /** Longest wait for another holder, ms. Default 10 minutes. */
  maxWaitMs?: number;
  /** What runs under it, recorded for other processes' messages. */
  command: string;
  /** Progress lines (a wait, a takeover). */
  onProgress?: (message: string) => void;
  /** Told to stop (SIGTERM, SIGINT): a wait for another holder ends, nothing taken. */
  signal?: AbortSignal;
  /** Sleep between polls and for the in-doubt time; default a real timer (tests pass one that moves a fake clock). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * What {@link takePushLease} got: the lease; or why there is no remote to hold it on (the
 * guarantee is per directory); or, told to stop while waiting for another holder, why not.
 */
export type LeaseOutcome = { lease: PushLease; notes: string[] } | { perDirectory: string } | { stopped: string };

/** A held lease. */
export interface PushLease {
  /**
   * Made before each POST: why this process may not send (the ref is no longer its commit; out of
   * reach, its last renewal too old, renewed first), or undefined.
   */
  verify(): Promise<string | undefined>;
  /** Stops renewing and removes the lease (compare-and-swap: only while it is still this one). */
  release(): Promise<void>;
}

/**
 * Takes the push lease of the content directory's repository (see the module description).
 * @throws {ChangelogSyncError} `E_LEASE` when `origin` cannot be read or written, or records a
 *   lifetime or in-doubt time beyond {@link MAX_LEASE_TTL_MS}; `E_LOCKED` naming the holder when
 *   a renewing holder kept it past `maxWaitMs` or the remote stopped answering meanwhile;
 *   `E_CONFIG` when `ttlMs` or `inDoubtMs` is beyond the cap.
 */
export async function takePushLease(options: LeaseOptions): Promise<LeaseOutcome> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  if (!(ttlMs > 0 && ttlMs <= MAX_LEASE_TTL_MS)) {
    throw new ChangelogSyncError('E_CONFIG', `the push lease's time to live must be more than 0 and at most ${MAX_LEASE_TTL_MS} ms (30 minutes), got ${ttlMs}`, { field: 'CHANGELOG_LEASE_TTL_MS' });
  }
  const remoteName = options.remote ?? 'origin';
  const pause = options.sleep ?? ((ms: number) => sleep(ms));
  const remote = await findLeaseRemote(options.dir, remoteName, options.ref ?? LEASE_REF, Math.max(10_000, ttlMs / 3), options.env ?? {});
  if ('none' in remote) return { perDirectory: remote.none };
  if (!(options.inDoubtMs >= 0 && options.inDoubtMs <= MAX_LEASE_TTL_MS)) {
    throw new ChangelogSyncError('E_CONFIG', `push's in-doubt time (twice the request timeout) must be at most ${MAX_LEASE_TTL_MS} ms (30 minutes) under the push lease, got ${options.inDoubtMs}: other clones refuse a longer one`, { field: 'CHANGELOG_TIMEOUT_MS', hint: `set CHANGELOG_TIMEOUT_MS to ${MAX_LEASE_TTL_MS / 2} or less (default 30000)` });
  }
  const me = { ...thisProcess(), token: randomBytes(8).toString('hex'), command: options.command, dir: options.dir, ttlMs, inDoubtMs: options.inDoubtMs };
  const record = (takenAt: string): LeaseRecord => {
    const now = Date.now();
    return { ...me, takenAt, renewedAt: new Date(now).toISOString(), expiresAt: new Date(now + ttlMs).toISOString() };
  };
  const started = Date.now();
  const maxWaitMs = options.maxWaitMs ?? 600_000;
  const notes: string[] = [];
  let seen: { oid: string; since: number } | undefined;
  // Whether the lease changed while this process waited: its holder (or a next one) lives.
  let renewedWhileWaiting = false;
  let waiting = false;
  let reachedOnce = false;
  for (;;) {
    let current: SeenLease | undefined;
    try {
      current = await readLease(remote);
    } catch (err) {
      if (!reachedOnce) throw unreadableRemote(remoteName, 'read', (err as Error).message);
      throw lockedByLease(`the git remote "${remoteName}" stopped answering while another process held the push lease (${(err as Error).message})`);
    }
    reachedOnce = true;
    let previous: LeaseRecord | undefined;
    let sameDirectoryDead = false;
    let lifetime = 0;
    let inDoubtMs = options.inDoubtMs;
    if (current) {
      const held = current.record;
      if (held?.token === me.token) {
        // Our own write went through although its answer was lost.
        return { lease: holdLease(remote, current.oid, record, held.takenAt, ttlMs, Date.now()), notes };
      }
      if (seen?.oid !== current.oid) {
        if (seen) renewedWhileWaiting = true;
        seen = { oid: current.oid, since: Date.now() };
      }
      const dead = held !== undefined && isOnThisMachine(held) && !isRecordedProcessAlive(held);
      if (!dead) lifetime = recordedTime(held, remote, 'ttlMs', MAX_LEASE_TTL_MS);
      // The holder's POSTs are in doubt for its own window, which may be longer than ours
      // (not waited for when it died in this very directory: its journal tells).
      if (!(dead && held.dir === options.dir)) inDoubtMs = Math.max(options.inDoubtMs, recordedTime(held, remote, 'inDoubtMs', LEGACY_IN_DOUBT_MS));
      const expired = Date.now() - seen.since >= lifetime;
      if (!dead && !expired) {
        // A holder that renews is waited for at most `maxWaitMs`; a lease that stays
        // unrenewed, for the whole lifetime it records, and is then taken over.
        if (Date.now() - started > maxWaitMs && renewedWhileWaiting) throw lockedByLease(`another process holds the push lease of this repository: ${holderText(held)}`);
        if (!waiting) options.onProgress?.(`waiting for the push lease of this repository, held by ${holderText(held)}`);
        waiting = true;
        const pollMs = Math.min(2_000, lifetime / 8);
        await abortable(pause(pollMs * (0.75 + Math.random() / 2)), options.signal).catch(() => undefined);
        if (options.signal?.aborted) return { stopped: 'told to stop while waiting for the push lease' };
        continue;
      }
      previous = held;
      sameDirectoryDead = dead && held.dir === options.dir;
    }
    const takenAt = new Date().toISOString();
    const writeStart = Date.now();
    let written: { oid: string } | 'lost';
    try {
      written = await writeLease(remote, record(takenAt), current?.oid);
    } catch (err) {
      if (!current) throw unreadableRemote(remoteName, 'written', (err as Error).message);
      throw lockedByLease(`the push lease held by ${holderText(previous)} cannot be taken over: ${(err as Error).message}`);
    }
    if (written === 'lost') continue; // another process wrote it first: look again
    const lease = holdLease(remote, written.oid, record, takenAt, ttlMs, writeStart);
    if (current) {
      const note = `took over the push lease from ${holderText(previous)}: ${previous && isOnThisMachine(previous) && !isRecordedProcessAlive(previous) ? 'that process is gone' : `not renewed for ${seconds(lifetime)}, the lifetime it recorded`}`;
      notes.push(note);
      options.onProgress?.(note);
      if (!sameDirectoryDead) {
        // A POST the previous holder started may still be processed by the service.
        options.onProgress?.(`waiting ${seconds(inDoubtMs)} before reading the listing: a POST of the previous holder may still be processed by the service`);
        await pause(inDoubtMs);
        const lost = await lease.verify();
        if (lost) {
          await lease.release();
          throw lockedByLease(`the push lease was lost while waiting: ${lost}`);
        }
      }
    }
    return { lease, notes };
  }
}

/**
 * A time the holder recorded, ms: its lifetime (how long an unrenewed lease is waited for) or
 * its in-doubt time (how long a POST of it may still be processed); `fallback` when none.
 * @throws {ChangelogSyncError} `E_LEASE` for one beyond {@link MAX_LEASE_TTL_MS}.
 */
function recordedTime(held: LeaseRecord | undefined, { remote: remoteName, ref }: LeaseRemote, field: 'ttlMs' | 'inDoubtMs', fallback: number): number {
  const ms = held?.[field];
  if (typeof ms !== 'number' || !(field === 'ttlMs' ? ms > 0 : ms >= 0)) return fallback;
  if (ms <= MAX_LEASE_TTL_MS) return ms;
  const [what, setting] = field === 'ttlMs' ? ['a lifetime', `CHANGELOG_LEASE_TTL_MS must be at most ${MAX_LEASE_TTL_MS}`] : ['an in-doubt time', `CHANGELOG_TIMEOUT_MS must be at most ${MAX_LEASE_TTL_MS / 2}`];
  throw new ChangelogSyncError('E_LEASE', `the push lease on the git remote "${remoteName}" records ${what} of ${seconds(ms)} (held by ${holderText(held)}), beyond the cap of ${seconds(MAX_LEASE_TTL_MS)}: it is neither waited for nor taken over, and nothing was sent`, {
    hint: `the holder's ${setting}; once that process has ended, remove its lease with \`git push ${remoteName} :${ref}\` and run again`,
  });
}

/** Holds a lease: renews it every third of `ttlMs`, verifies it before each POST. */
function holdLease(remote: LeaseRemote, oid: string, record: (takenAt: string) => LeaseRecord, takenAt: string, ttlMs: number, renewedFrom: number): PushLease {
  let current = oid;
  let validFrom = renewedFrom; // start of the last successful write, by this clock
  let lost: string | undefined;
  let renewing: Promise<void> | undefined;
  let released = false;
  // Every commit this process made the ref point at: a read that returns one of them saw
  // this lease (an older one only when the read began before a renewal landed).
  const mine = new Set([oid]);
  const renew = (): Promise<void> => {
    if (lost) return Promise.resolve(); // the ref is another's: writing it would only fail
    renewing ??= (async () => {
      const start = Date.now();
      try {
        const written = await writeLease(remote, record(takenAt), current);
        if (written === 'lost') lost = 'another process took it over (it was not renewed in time: this process was stopped or cut off)';
        else {
          mine.add(written.oid);
          current = written.oid;
          validFrom = start;
        }
      } catch {
        // Unreachable for now: verify() refuses once the last renewal is too old.
      } finally {
        renewing = undefined;
      }
    })();
    return renewing;
  };
  const timer = setInterval(() => void renew(), ttlMs / 3);
  timer.unref();
  return {
    async verify() {
      if (lost) return lost;
      if (Date.now() - validFrom < (2 * ttlMs) / 3) {
        // Still this lease on the remote? Out of reach, the age of the last renewal decides.
        const onRemote = await readLeaseOid(remote).then(
          (o) => ({ oid: o }),
          () => undefined,
        );
        if (onRemote && (onRemote.oid === undefined || !mine.has(onRemote.oid))) {
          await renewing; // a renewal in flight may have written what was read
          if (!lost && (onRemote.oid === undefined || !mine.has(onRemote.oid))) {
            lost = onRemote.oid === undefined ? `it was removed from the git remote "${remote.remote}"` : 'another process took it over';
          }
        }
      } else await renew();
      if (lost) return lost;
      if (Date.now() - validFrom < (2 * ttlMs) / 3) return undefined;
      return `it could not be renewed on the git remote "${remote.remote}" for ${Math.round((Date.now() - validFrom) / 1000)} s`;
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing;
      if (lost) return;
      await deleteLease(remote, current).catch(() => false); // left behind, it expires
    },
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function holderText(held: LeaseRecord | undefined): string {
  if (!held) return 'a process that did not record itself';
  return `pid ${held.pid} on host "${held.host}", running \`${held.command}\` since ${held.takenAt}`;
}

/** `origin` exists but cannot be read (or written): the lease cannot be kept, and push refuses. */
function unreadableRemote(remoteName: string, how: 'read' | 'written', why: string): ChangelogSyncError {
  const fix =
    how === 'read'
      ? `make "${remoteName}" reachable (\`git remote get-url ${remoteName}\`, \`git ls-remote ${remoteName}\`: the host name, the network or VPN, the credentials)`
      : `give this clone write access to "${remoteName}" (in GitHub Actions, the job's \`permissions: contents: write\`)`;
  return new ChangelogSyncError('E_LEASE', `the git remote "${remoteName}" cannot be ${how} (${why}), so the push lease that keeps other clones from sending the same files cannot be taken; nothing was sent`, {
    hint: `${fix}; or, only if no other clone pushes to this workspace, run again with --no-lease (at most once per directory then)`,
  });
}

function lockedByLease(message: string): ChangelogSyncError {
  return new ChangelogSyncError('E_LOCKED', message, {
    hint: 'wait for the other push to finish and run again; a lease left by a process that died is taken over once it was not renewed for the lifetime its holder recorded (that machine\'s CHANGELOG_LEASE_TTL_MS, 60 s by default, at most 30 minutes)',
  });
}
