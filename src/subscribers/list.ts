/**
 * `subscribers list`: every subscriber of the workspace (docs/service-interface.md#endpoints, endpoint 7),
 * with the counts a reader wants first.
 */
import type { ChangelogClient } from '../service/client.js';
import type { Subscriber } from '../service/schemas.js';

/** The result of {@link listSubscribers}. */
export interface SubscriberList {
  count: number;
  /** Subscribers with a `verified_at`. */
  verified: number;
  /** Subscribers whose `verified_at` is null. */
  unverified: number;
  /** In the service's order. */
  subscribers: Subscriber[];
}

/**
 * Lists the subscribers: one `GET /api/subscribers` through the client's rate budget.
 * @throws {ChangelogSyncError} the client's error for the request.
 */
export async function listSubscribers(client: ChangelogClient): Promise<SubscriberList> {
  const subscribers = await client.listSubscribers();
  const verified = subscribers.filter((s) => s.verified_at !== null).length;
  return { count: subscribers.length, verified, unverified: subscribers.length - verified, subscribers };
}
