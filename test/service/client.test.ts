// The client's error translation and retry policy, against undici's MockAgent with the
// network disabled (docs/architecture.md#conventions: tests).
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangelogClient } from '../../src/service/client.js';
import { parseRetryAfter } from '../../src/service/http-errors.js';
import { ChangelogSyncError, RateLimitedError, ValidationError } from '../../src/core/errors.js';
import { RateBudget } from '../../src/service/rate-budget.js';

const BASE = 'https://changelog.test';
const TOKEN = 'secret-token-abc123';
const env = (data: unknown) => ({ success: true, version: '1.0', data });
const json = { headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' } };

let agent: MockAgent;
let pool: ReturnType<MockAgent['get']>;
let sleeps: number[];
let clock: number;
/** A budget on a fake clock that the fake sleep advances. */
const fakeBudget = () =>
  new RateBudget({
    now: () => clock,
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });

function client(extra: Partial<ConstructorParameters<typeof ChangelogClient>[0]> = {}) {
  return new ChangelogClient({
    baseUrl: BASE,
    token: TOKEN,
    dispatcher: agent,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    budget: fakeBudget(),
    ...extra,
  });
}

async function caught(p: Promise<unknown>): Promise<ChangelogSyncError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ChangelogSyncError);
    return err as ChangelogSyncError;
  }
  throw new Error('expected a rejection');
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  pool = agent.get(BASE);
  sleeps = [];
  clock = Date.UTC(2026, 10, 22);
});
afterEach(async () => {
  await agent.close();
});

describe('requests', () => {
  it('sends Accept, Content-Type and the bearer token, and unwraps the envelope', async () => {
    let seen: Record<string, string> = {};
    pool
      .intercept({ path: '/api/workspace', method: 'GET' })
      .reply((opts) => {
        seen = opts.headers as Record<string, string>;
        return { statusCode: 200, data: env({ identifier: 'ws-1', name: 'W', is_public: 1, allow_bots: 0, show_backlink: 1 }), responseOptions: json };
      });
    const ws = await client().getWorkspace();
    expect(ws.identifier).toBe('ws-1');
    expect(ws.allow_bots).toBe(false);
    expect(seen.accept).toBe('application/json');
    expect(seen['content-type']).toBe('application/json');
    expect(seen.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('sends no Authorization header to the public latest-entry endpoint and accepts both shapes', async () => {
    let auth: string | undefined = 'unset';
    pool.intercept({ path: '/api/entries/latest/ws-1', method: 'GET' }).reply((opts) => {
      auth = (opts.headers as Record<string, string>).authorization;
      return { statusCode: 200, data: { uuid: 'e-1', date: '2026-01-02T00:00:00.000000Z' }, responseOptions: json };
    });
    pool.intercept({ path: '/api/entries/latest/ws-2', method: 'GET' }).reply(200, ['e-2', '2026-01-03T00:00:00.000000Z'], json);
    const c = client();
    expect(await c.getLatestEntry('ws-1')).toMatchObject({ uuid: 'e-1', date: '2026-01-02T00:00:00.000000Z' });
    expect(auth).toBeUndefined();
    expect(await c.getLatestEntry('ws-2')).toMatchObject({ uuid: 'e-2' });
  });

  it('accepts any status string, unknown fields, Editor.js content and a limit', async () => {
    pool.intercept({ path: '/api/entries?limit=2', method: 'GET' }).reply(
      200,
      env([
        { identifier: 'a', title: 'A', slug: 'a', publish_at: '2026-01-01T00:00:00.000000Z', status: 'archived', notify_subscribers: 0, content: '<p>x</p>', views: 9 },
        { identifier: 'b', title: 'B', slug: 'b', publish_at: null, status: 'draft', notify_subscribers: true, content: { time: 1, blocks: [{ type: 'paragraph', data: { text: 'hi' } }] } },
      ]),
      json,
    );
    const list = await client().listEntries({ limit: 2 });
    expect(list[0]).toMatchObject({ status: 'archived', notify_subscribers: false, views: 9 });
    expect(list[1]!.content).toMatchObject({ blocks: [{ type: 'paragraph' }] });
  });

  it.each([
    ['the created entry', 201, env({ identifier: 'id-1', title: 'T', slug: 't', publish_at: null, status: 'draft', notify_subscribers: false, content: '' }), 'id-1', true],
    ['only an identifier', 201, env({ identifier: 'id-2' }), 'id-2', false],
    ['success without data', 201, { success: true, version: '1.0' }, undefined, false],
    ['an empty body', 201, '', undefined, false],
  ])('POST /api/entry answered with %s', async (_label, status, body, identifier, whole) => {
    pool.intercept({ path: '/api/entry', method: 'POST' }).reply(status, body as object, json);
    const res = await client().createEntry({ title: 'T', slug: 't' });
    expect(res.identifier).toBe(identifier);
    expect(res.entry !== undefined).toBe(whole);
  });

  it('reads x-ratelimit headers of every response into the budget', async () => {
    const budget = new RateBudget();
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(200, env([]), { headers: { 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '10' } });
    await client({ budget }).listTags();
    expect(budget.perMinute).toBe(30);
    expect(budget.windowRemaining()).toBe(10);
  });
});

describe('errors are translated at the boundary', () => {
  it.each([
    [401, 'E_AUTH'],
    [403, 'E_AUTH'],
    [404, 'E_NOT_FOUND'],
    [400, 'E_VALIDATION'],
    [500, 'E_SERVICE'],
    [418, 'E_UNEXPECTED_RESPONSE'],
  ])('%i -> %s, naming method, URL and status, never the token', async (status, code) => {
    pool.intercept({ path: '/api/subscribers', method: 'GET' }).reply(status, { message: 'nope' }, json).persist();
    const err = await caught(client({ getRetries: 0 }).listSubscribers());
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.message).toContain(`GET ${BASE}/api/subscribers: ${status}`);
    expect(err.message).not.toContain(TOKEN);
  });

  it('a user name and password in the base URL are named in no message and sent nowhere', async () => {
    let auth: string | undefined;
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply((opts) => {
      auth = (opts.headers as Record<string, string>).authorization;
      return { statusCode: 404, data: { message: 'nope' }, responseOptions: json };
    });
    const c = client({ baseUrl: 'https://alice:hunter2@changelog.test/' });
    const err = await caught(c.listTags());
    expect(err.message).toBe(`GET ${BASE}/api/tags: 404 Not Found: nope`);
    expect(`${err.message} ${err.hint}`).not.toMatch(/alice|hunter2/);
    expect(c.baseUrl).toBe(BASE);
    expect(auth).toBe(`Bearer ${TOKEN}`);
  });

  it('422 -> E_VALIDATION with the service message and field errors', async () => {
    pool
      .intercept({ path: '/api/entry', method: 'POST' })
      .reply(422, { message: 'The title field is required.', errors: { title: ['The title field is required.'] } }, json);
    const err = (await caught(client().createEntry({ title: 'x' }))) as ValidationError;
    expect(err.code).toBe('E_VALIDATION');
    expect(err.issues).toEqual([{ field: 'title', message: 'The title field is required.' }]);
    expect(err.message).toContain('POST https://changelog.test/api/entry: 422');
  });

  it('429 -> waits Retry-After, retries, and gives up as E_RATE_LIMITED with retryAfter', async () => {
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(429, { message: 'Too Many Attempts.' }, { headers: { 'retry-after': '7' } }).times(3);
    const err = (await caught(client({ rateLimitRetries: 2 }).listTags())) as RateLimitedError;
    expect(err.code).toBe('E_RATE_LIMITED');
    expect(err.retryAfter).toBe(7);
    // Two retries, each after the budget blocked for Retry-After (7 s).
    expect(sleeps.filter((s) => s >= 6_000).length).toBe(2);
  });

  it('429 then success: a POST is retried (the service refused it, nothing was created)', async () => {
    pool.intercept({ path: '/api/entry', method: 'POST' }).reply(429, { message: 'slow down' }, { headers: { 'retry-after': '1' } });
    pool.intercept({ path: '/api/entry', method: 'POST' }).reply(201, env({ identifier: 'ok' }), json);
    expect((await client().createEntry({ title: 'T' })).identifier).toBe('ok');
  });

  it('an HTML login page -> E_UNEXPECTED_RESPONSE naming method, URL and status', async () => {
    pool.intercept({ path: '/api/entries', method: 'GET' }).reply(200, '<!doctype html><html><body>Log in</body></html>', { headers: { 'content-type': 'text/html' } });
    const err = await caught(client().listEntries());
    expect(err.code).toBe('E_UNEXPECTED_RESPONSE');
    expect(err.message).toBe(`GET ${BASE}/api/entries: 200 returned an HTML page (a login page?) instead of JSON`);
  });

  it('a redirect to a login page -> E_UNEXPECTED_RESPONSE with the location', async () => {
    pool.intercept({ path: '/api/entries', method: 'GET' }).reply(302, '', { headers: { location: `${BASE}/login` } });
    const err = await caught(client().listEntries());
    expect(err.code).toBe('E_UNEXPECTED_RESPONSE');
    expect(err.message).toContain('302 redirect to https://changelog.test/login');
  });

  it('malformed JSON and a missing envelope -> E_UNEXPECTED_RESPONSE', async () => {
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(200, '{"success": true, "data": [', json);
    expect((await caught(client().listTags())).message).toContain('malformed JSON');
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(200, [{ name: 'x' }], json);
    expect((await caught(client().listTags())).code).toBe('E_UNEXPECTED_RESPONSE');
  });

  it('a body without the specified fields -> E_UNEXPECTED_RESPONSE naming method, URL, status and the field', async () => {
    pool.intercept({ path: '/api/workspace', method: 'GET' }).reply(200, env({ name: 'W' }), json);
    const one = await caught(client().getWorkspace());
    expect(one.code).toBe('E_UNEXPECTED_RESPONSE');
    expect(one.message).toMatch(/^GET https:\/\/changelog\.test\/api\/workspace: 200 but the response does not have the fields the interface specifies \(identifier: /);
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(200, env([{ name: 'A', slug: 'a', bg_color: '#000000', text_color: '#ffffff' }, { name: 'B' }]), json);
    const list = await caught(client().listTags());
    expect(list.message).toMatch(/^GET https:\/\/changelog\.test\/api\/tags: 200 but item 1 of the list does not have the fields the interface specifies \(slug: /);
    pool.intercept({ path: '/api/subscribers', method: 'DELETE' }).reply(200, env({ removed: 1 }), json);
    expect((await caught(client().removeSubscribers(['a@example.com']))).message).toBe(`DELETE ${BASE}/api/subscribers: 200 but data is not a list of emails`);
  });

  it('GET retries a 5xx with backoff and then succeeds', async () => {
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(503, { message: 'busy' }, json).times(2);
    pool.intercept({ path: '/api/tags', method: 'GET' }).reply(200, env([{ name: 'A', slug: 'a', bg_color: '#000000', text_color: '#ffffff' }]), json);
    const tags = await client().listTags();
    expect(tags).toHaveLength(1);
    expect(sleeps.length).toBeGreaterThanOrEqual(2);
  });

  it('GET retries a lost connection, then reports E_NETWORK', async () => {
    pool.intercept({ path: '/api/tags', method: 'GET' }).replyWithError(new Error('socket hang up')).times(4);
    const err = await caught(client({ getRetries: 3 }).listTags());
    expect(err.code).toBe('E_NETWORK');
    expect(err.message).toContain(`GET ${BASE}/api/tags: no response`);
  });

  it('POST and DELETE are never retried blindly', async () => {
    pool.intercept({ path: '/api/entry', method: 'POST' }).reply(500, { message: 'boom' }, json);
    // A second interceptor that must stay unused: a retry would consume it.
    pool.intercept({ path: '/api/entry', method: 'POST' }).reply(201, env({ identifier: 'dup' }), json);
    const err = await caught(client().createEntry({ title: 'T' }));
    expect(err.code).toBe('E_SERVICE');
    expect(agent.pendingInterceptors()).toHaveLength(1);

    pool.intercept({ path: '/api/subscribers', method: 'DELETE' }).replyWithError(new Error('reset'));
    expect((await caught(client().removeSubscribers(['a@example.com']))).code).toBe('E_NETWORK');
  });

  it('no token: E_AUTH before anything is sent', async () => {
    const err = await caught(client({ token: undefined }).listEntries());
    expect(err.code).toBe('E_AUTH');
    expect(err.hint).toContain('CHANGELOG_TOKEN');
  });

  it('a base URL that is not http(s) is refused with E_CONFIG', () => {
    expect(() => new ChangelogClient({ baseUrl: 'ftp://x' })).toThrow(/must be http or https/);
    expect(() => new ChangelogClient({ baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => new ChangelogClient({ baseUrl: 'https://alice:hunter2@' })).toThrow(/^CHANGELOG_BASE_URL is not a URL \(the value is not shown: it may hold a secret\)$/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2026, 0, 1))).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
