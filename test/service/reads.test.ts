// The three reads a pull starts with, and their end (src/service/reads.ts): cancel() closes a
// read whose request is open, stops one waiting out a backoff or waiting for the rate budget,
// and resolves once all three have settled, after which none sends, books or writes anything.
// Against a service on port 0 that holds its answers (helpers/service/held-service.ts); backoffs on a
// sleep the test holds. Nothing waits on time.
import { afterEach, describe, expect, it } from 'vitest';
import { ChangelogClient, type ClientOptions } from '../../src/service/client.js';
import { RateBudget } from '../../src/service/rate-budget.js';
import { startServiceReads } from '../../src/service/reads.js';
import { answer, startHeldService, type HeldService } from '../helpers/service/held-service.js';

let service: HeldService | undefined;
let client: ChangelogClient | undefined;
afterEach(async () => {
  await client?.close();
  await service?.close();
  client = service = undefined;
});

/** A client of `service` whose budget counts its bookings. */
function clientOf(s: HeldService, options: Partial<ClientOptions> & { perMinute?: number } = {}): { client: ChangelogClient; booked: () => number } {
  let booked = 0;
  const budget = new RateBudget({ perMinute: options.perMinute ?? 60, onBook: () => void booked++ });
  client = new ChangelogClient({ baseUrl: s.url, token: 't', budget, ...options });
  return { client, booked: () => booked };
}

/** How each read ended: `ok`, or the message it rejected with. */
const outcomes = (reads: ReturnType<typeof startServiceReads>) =>
  Promise.all([reads.workspace, reads.entries, reads.tags].map((p) => p.then(() => 'ok', (err: Error) => err.message)));

const CANCELLED = 'the job that sent this read has stopped';

describe('startServiceReads: cancel()', () => {
  it('closes the requests in flight and resolves once the reads settled: the service sees them closed, never answered', async () => {
    service = await startHeldService(() => undefined); // holds every request
    const { client: c, booked } = clientOf(service);
    const reads = startServiceReads(c);
    await Promise.all(['/api/workspace', '/api/entries', '/api/tags'].map((p) => service!.arrived(p)));
    await reads.cancel();
    expect(await outcomes(reads)).toEqual([CANCELLED, CANCELLED, CANCELLED]);
    expect(c.budget.inFlight).toBe(0);
    await Promise.all(service.requests.map((r) => r.closed));
    expect(service.requests.map((r) => r.answered())).toEqual([false, false, false]);
    expect(booked()).toBe(3);
  });

  it('stops a read waiting out its backoff: it is not sent again, and books nothing more', async () => {
    service = await startHeldService((req) => (req.path === '/api/entries' ? answer(req, 503) : undefined));
    let backingOff!: () => void;
    const inBackoff = new Promise<void>((resolve) => (backingOff = resolve));
    const held: Array<() => void> = [];
    const { client: c, booked } = clientOf(service, {
      sleep: () => {
        backingOff();
        return new Promise<void>((resolve) => held.push(resolve));
      },
    });
    const reads = startServiceReads(c);
    await inBackoff; // the listing got its 503 and waits to retry
    await reads.cancel();
    expect(await outcomes(reads)).toEqual([CANCELLED, CANCELLED, CANCELLED]);
    expect(booked()).toBe(3);
    // The backoff's end now sets nothing off: a request sent after it books the only new slot.
    for (const release of held) release();
    const sentinel = new ChangelogClient({ baseUrl: service.url, token: 't', budget: c.budget });
    const tags = sentinel.listTags();
    answer(await service.arrived('/api/tags', 2), 200, []);
    expect(await tags).toEqual([]);
    await sentinel.close();
    expect(booked()).toBe(3 + 1);
    expect(service.requests.filter((r) => r.path === '/api/entries')).toHaveLength(1);
  });

  it('stops reads waiting for the rate budget before they book a slot', async () => {
    service = await startHeldService(() => undefined);
    // One request a minute: the workspace read takes the slot, the other two wait for it.
    const { client: c, booked } = clientOf(service, { perMinute: 1 });
    const reads = startServiceReads(c);
    await service.arrived('/api/workspace');
    await reads.cancel();
    expect(await outcomes(reads)).toEqual([CANCELLED, CANCELLED, CANCELLED]);
    expect(booked()).toBe(1);
    expect(c.budget.sent).toBe(1);
    expect(service.requests.map((r) => r.path)).toEqual(['/api/workspace']);
  });
});
