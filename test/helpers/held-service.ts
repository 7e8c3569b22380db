// A stand-in for the service whose answers a test holds: for the tests of reads that are
// cancelled while open or waiting out a backoff (service/reads.ts). Nothing here waits on
// time: a held request stays open until the client closes it or the test answers it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
