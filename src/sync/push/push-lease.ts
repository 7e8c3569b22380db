/**
 * The push lease (docs/sync.md#the-push-lease; issue 25 "At most once across machines"):
 * one pusher at a time across every clone of the repository, through what they all share,
 * the git remote. The lock (`lock.ts`) covers one content directory; the lease covers the
 * workspace's clones: a writer's `push` on a laptop and the scheduled job's `sync`.
 *
 * - **Take.** A push with something to send takes the lease before it reads the listing
 *   (`lease-ref.ts`: a ref written by compare-and-swap). Held by another process: it waits,
 *   polling, and takes it once released; the listing it then reads shows what the other
 *   created, which is adopted, never sent again.
 * - **Expiry, without trusting clocks.** A holder renews it every third of its time to live
 *   (`ttlMs`). Another process takes it over when it has seen the same lease commit,
 *   unrenewed, for a whole `ttlMs` by its own clock, or at once when the holder ran on this
 *   machine and is gone. After a takeover it waits the in-doubt time (twice the request
 *   timeout) before reading the listing, unless the dead holder pushed from this very
 *   directory (its journal then tells): a POST the old holder started is settled by then.
 * - **Fencing.** The holder sends a POST only while its last renewal is younger than two
 *   thirds of `ttlMs` by its own clock ({@link PushLease.verify}, made before each POST);
 *   older, it renews first, and when the lease moved it sends nothing more.
 * - **No remote.** Not a git repository, no `origin`, or the remote cannot be read or
 *   written: push says the guarantee is per directory (the lock's) and goes on.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChangelogSyncError } from '../../core/errors.js';
import { deleteLease, findLeaseRemote, LeaseRemoteError, readLease, writeLease, type LeaseRecord, type LeaseRemote, type SeenLease } from './lease-ref.js';
import { isOnThisMachine, isRecordedProcessAlive, thisProcess } from '../../core/process-alive.js';

/** Default time to live of the lease, ms. */
const DEFAULT_LEASE_TTL_MS = 60_000;

/** Options of {@link takePushLease}. */
export interface LeaseOptions {
  /** The content directory (absolute): where git is asked for the repository. */
  dir: string;
  /** The git remote every clone shares. Default `origin`. */
  remote?: string;
  /** Time to live of the lease, ms (renewed every third of it). Default {@link DEFAULT_LEASE_TTL_MS}. */
  ttlMs?: number;
  /** How long a POST that got no answer may still be processed by the service, ms (push's in-doubt time). */
  inDoubtMs: number;
  /** Longest wait for another holder, ms. Default 10 minutes. */
  maxWaitMs?: number;
  /** What runs under it, recorded for other processes' messages. */
  command: string;
  /** Progress lines (a wait, a takeover). */
  onProgress?: (message: string) => void;
}

/** What {@link takePushLease} got. */
export type LeaseOutcome = { lease: PushLease; notes: string[] } | { perDirectory: string };

/** A held lease. */
export interface PushLease {
  /**
   * Whether this process may send now: the lease not lost, its last renewal young enough
   * (else renewed first, against the remote). Made before each POST.
   * @returns why it may not, or undefined.
   */
  verify(): Promise<string | undefined>;
  /** Stops renewing and removes the lease (compare-and-swap: only while it is still this one). */
  release(): Promise<void>;
}

/**
 * Takes the push lease of the repository the content directory is in (see the module description).
 * @throws {ChangelogSyncError} `E_LOCKED` naming the holder when it was not released nor
 *   expired within `maxWaitMs`, or when the remote stopped answering while another held it.
 */
export async function takePushLease(options: LeaseOptions): Promise<LeaseOutcome> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const remoteName = options.remote ?? 'origin';
  const found = await findLeaseRemote(options.dir, remoteName, Math.max(10_000, ttlMs / 3));
  if ('none' in found) return { perDirectory: found.none };
  const remote = found;
  const me = { ...thisProcess(), token: randomBytes(8).toString('hex'), command: options.command, dir: options.dir, ttlMs };
  const record = (takenAt: string): LeaseRecord => {
    const now = Date.now();
    return { ...me, takenAt, renewedAt: new Date(now).toISOString(), expiresAt: new Date(now + ttlMs).toISOString() };
  };
  const pollMs = Math.min(2_000, ttlMs / 8);
  const deadline = Date.now() + (options.maxWaitMs ?? 600_000);
  const notes: string[] = [];
  let seen: { oid: string; since: number } | undefined;
  let waiting = false;
  let reachedOnce = false;
  for (;;) {
    let current: SeenLease | undefined;
    try {
      current = await readLease(remote);
    } catch (err) {
      if (!reachedOnce && err instanceof LeaseRemoteError) return { perDirectory: `the git remote "${remoteName}" cannot be read (${err.message})` };
      throw lockedByLease(`the git remote "${remoteName}" stopped answering while another process held the push lease (${(err as Error).message})`);
    }
    reachedOnce = true;
    let previous: LeaseRecord | undefined;
    let sameDirectoryDead = false;
    if (current) {
      const held = current.record;
      if (held?.token === me.token) {
        // Our own write went through although its answer was lost.
        return { lease: holdLease(remote, current.oid, record, held.takenAt, ttlMs, Date.now()), notes };
      }
      if (seen?.oid !== current.oid) seen = { oid: current.oid, since: Date.now() };
      const dead = held !== undefined && isOnThisMachine(held) && !isRecordedProcessAlive(held);
      const expired = Date.now() - seen.since >= ttlMs;
      if (!dead && !expired) {
        if (Date.now() > deadline) throw lockedByLease(`another process holds the push lease of this repository: ${holderText(held)}`);
        if (!waiting) options.onProgress?.(`waiting for the push lease of this repository, held by ${holderText(held)}`);
        waiting = true;
        await sleep(pollMs * (0.75 + Math.random() / 2));
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
      if (!current && err instanceof LeaseRemoteError) return { perDirectory: `the push lease cannot be written to the git remote "${remoteName}" (${err.message})` };
      throw lockedByLease(`the push lease held by ${holderText(previous)} cannot be taken over: ${(err as Error).message}`);
    }
    if (written === 'lost') continue; // another process wrote it first: look again
    const lease = holdLease(remote, written.oid, record, takenAt, ttlMs, writeStart);
    if (current) {
      const note = `took over the push lease from ${holderText(previous)}: ${previous && isOnThisMachine(previous) && !isRecordedProcessAlive(previous) ? 'that process is gone' : `not renewed for ${seconds(ttlMs)}`}`;
      notes.push(note);
      options.onProgress?.(note);
      if (!sameDirectoryDead) {
        // A POST the previous holder started may still be processed by the service.
        options.onProgress?.(`waiting ${seconds(options.inDoubtMs)} before reading the listing: a POST of the previous holder may still be processed by the service`);
        await sleep(options.inDoubtMs);
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

/** Holds a lease: renews it every third of `ttlMs`, verifies it before each POST. */
function holdLease(remote: LeaseRemote, oid: string, record: (takenAt: string) => LeaseRecord, takenAt: string, ttlMs: number, renewedFrom: number): PushLease {
  let current = oid;
  let validFrom = renewedFrom; // start of the last successful write, by this clock
  let lost: string | undefined;
  let renewing: Promise<void> | undefined;
  let released = false;
  const renew = (): Promise<void> => {
    renewing ??= (async () => {
      const start = Date.now();
      try {
        const written = await writeLease(remote, record(takenAt), current);
        if (written === 'lost') lost = 'another process took it over (it was not renewed in time: this process was stopped or cut off)';
        else {
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
      if (Date.now() - validFrom < (2 * ttlMs) / 3) return undefined;
      await renew();
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

function lockedByLease(message: string): ChangelogSyncError {
  return new ChangelogSyncError('E_LOCKED', message, {
    hint: 'wait for the other push to finish and run again; a lease left by a process that died is taken over once it was not renewed for its time to live (CHANGELOG_LEASE_TTL_MS, 60 s by default)',
  });
}
