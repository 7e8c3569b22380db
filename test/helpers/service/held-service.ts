// A stand-in for the service whose answers a test holds, and a watch on the reads a job sends:
// for the tests of a job that stops on one read's failure while its sibling reads are still
// open or waiting out a backoff (service/reads.ts; sync/sync-job.ts, sync/pull/pull.ts, the
// pull and status commands). Nothing here waits on time: a held request stays open until the
// client closes it or the test answers it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { ChangelogClient } from '../../../src/service/client.js';
import type { RateBudget } from '../../../src/service/rate-budget.js';

/** One request the service received. */
export interface HeldRequest {
  /** The path without the query, e.g. `/api/entries`. */
  path: string;
  /** Its answer, for the route (or the test) to write. */
  res: ServerResponse;
  /** Resolves when its connection closed: answered and ended, or closed by the client. */
  closed: Promise<void>;
  /** True once the answer was written in full (false when the client closed it first). */
  answered(): boolean;
}

/** A running {@link startHeldService}. */
export interface HeldService {
  /** The service root (`http://127.0.0.1:<port>`). */
  url: string;
  /** Every request received, in order of arrival. */
  requests: HeldRequest[];
  /** Resolves with the `n`th request (from 1) for `path` once it arrived. */
  arrived(path: string, n?: number): Promise<HeldRequest>;
  /** Closes every connection, then the server. */
  close(): Promise<void>;
}

/**
 * Starts a service on 127.0.0.1 (port 0) that hands each request to `route`; a request the
 * route does not answer is held open.
 * @param route answers (or holds) a request; it may answer later, e.g. once another arrived.
 */
export async function startHeldService(route: (req: HeldRequest, service: HeldService) => void): Promise<HeldService> {
  const waiters: Array<{ path: string; n: number; resolve: (r: HeldRequest) => void }> = [];
  const requests: HeldRequest[] = [];
  const nth = (path: string, n: number) => requests.filter((r) => r.path === path)[n - 1];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const held: HeldRequest = {
      path: new URL(req.url ?? '/', 'http://x').pathname,
      res,
      closed: new Promise((resolve) => res.once('close', () => resolve())),
      answered: () => res.writableFinished,
    };
    requests.push(held);
    route(held, service);
    for (const w of waiters.filter((x) => nth(x.path, x.n) !== undefined)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(nth(w.path, w.n)!);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const service: HeldService = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    arrived: (path, n = 1) => new Promise((resolve) => {
      const got = nth(path, n);
      if (got) resolve(got);
      else waiters.push({ path, n, resolve });
    }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return service;
}

/** Answers `req` with `status`: a 2xx with the service's envelope around `data`, else its JSON error body. */
export function answer(req: HeldRequest, status: number, data: unknown = null): void {
  const body = status < 300 ? { success: true, version: '1.0', data } : { message: status === 401 ? 'Unauthenticated.' : 'Service Unavailable' };
  req.res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The route of a service whose workspace read fails with 401 once the listing and the tags
 * have arrived, and which holds those two open: a job stops on the workspace's failure while
 * its sibling reads are in flight.
 */
function failWorkspaceHoldingSiblings(req: HeldRequest, service: HeldService): void {
  if (req.path !== '/api/workspace') return;
  void Promise.all([service.arrived('/api/entries'), service.arrived('/api/tags')]).then(() => answer(req, 401));
}

/** The three reads a job starts with (`service/reads.ts`). */
const READS = ['getWorkspace', 'listEntries', 'listTags'] as const;

/** A read a watched client sent. */
export interface WatchedRead {
  name: (typeof READS)[number];
  /** The client that sent it. */
  client: ChangelogClient;
  /** True once its promise settled (set as it settles, before anything that awaited it resumes). */
  settled: boolean;
}

/**
 * Watches the reads of every {@link ChangelogClient} (its prototype's `getWorkspace`,
 * `listEntries`, `listTags`, which still run): which were sent, and which have settled. A
 * read that has settled sends, books and writes nothing more. Restore with `restore()`
 * (or vitest's `restoreAllMocks`).
 */
export function watchReads(): { reads: WatchedRead[]; pending(): string[]; restore(): void } {
  const reads: WatchedRead[] = [];
  const spies = READS.map((name) => {
    const original = Object.getOwnPropertyDescriptor(ChangelogClient.prototype, name)!.value as (this: ChangelogClient, ...args: unknown[]) => Promise<unknown>;
    return vi.spyOn(ChangelogClient.prototype, name).mockImplementation(function (this: ChangelogClient, ...args: unknown[]) {
      const read: WatchedRead = { name, client: this, settled: false };
      reads.push(read);
      const sent = original.apply(this, args);
      sent.then(
        () => (read.settled = true),
        () => (read.settled = true),
      );
      return sent as never;
    });
  });
  return {
    reads,
    pending: () => reads.filter((r) => !r.settled).map((r) => r.name),
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}

/** What a job did against {@link failWorkspaceHoldingSiblings} ({@link runStoppedByWorkspace}). */
export interface StoppedJob<T> {
  /** How the job settled. */
  outcome: PromiseSettledResult<T>;
  /**
   * As the job settled: the reads it had sent (by name, sorted); those not settled yet (each
   * could still book a request and write the ledger); and, in the budgets of the clients that
   * sent them, the slots in flight and the requests booked.
   */
  ended: { sent: string[]; pending: string[]; inFlight: number; booked: number };
  /**
   * Resolves once the service saw the listing and the tags requests closed, with whether each
   * was answered (call it once `ended.pending` is empty: an open request never closes by itself).
   */
  siblingsAnswered(): Promise<boolean[]>;
  /** Closes the client made for the job and the service (once: a second call waits for the first). */
  close(): Promise<void>;
}

/**
 * Runs `job` against a service that fails the workspace read with 401 and holds the listing
 * and the tags ({@link failWorkspaceHoldingSiblings}), watching the reads it sends.
 * @param job given a client of the service (its budget `options.budget`, else a fresh one) and
 *   the service's root URL (for a command, which makes its own client).
 */
export async function runStoppedByWorkspace<T>(job: (client: ChangelogClient, url: string) => Promise<T>, options: { budget?: RateBudget } = {}): Promise<StoppedJob<T>> {
  const service = await startHeldService(failWorkspaceHoldingSiblings);
  const client = new ChangelogClient({ baseUrl: service.url, token: 't', ...options });
  const watch = watchReads();
  let closed: Promise<void> | undefined;
  try {
    const [outcome] = await Promise.allSettled([job(client, service.url)]);
    const budgets = new Set(watch.reads.map((r) => r.client.budget));
    const sum = (of: (b: RateBudget) => number) => [...budgets].reduce((n, b) => n + of(b), 0);
    const ended = { sent: watch.reads.map((r) => r.name).sort(), pending: watch.pending(), inFlight: sum((b) => b.inFlight), booked: sum((b) => b.sent) };
    const siblings = service.requests.filter((r) => r.path !== '/api/workspace');
    return {
      outcome,
      ended,
      siblingsAnswered: async () => {
        await Promise.all(siblings.map((r) => r.closed));
        return siblings.map((r) => r.answered());
      },
      close: () =>
        (closed ??= (async () => {
          // The service first: a request still held (a failing test) would keep the client's close waiting.
          await service.close();
          await client.close();
        })()),
    };
  } finally {
    watch.restore();
  }
}
