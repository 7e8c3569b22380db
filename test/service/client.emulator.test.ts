// The real client against the real emulator over HTTP on port 0: all nine endpoints,
// authentication, limits (docs/service-interface.md#endpoints, #authentication, #limits).
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import { RateBudget } from '../../src/service/rate-budget.js';
import { serviceTimestamp } from '../../src/emulator/store.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';

let fx: EmulatorFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('the nine endpoints', () => {
  it('workspace, entries (newest first, limit), one entry, tags', async () => {
    fx = await emulatorFixture();
    fx.ws.tags.push({ name: 'Fix', slug: 'fix', bg_color: '#ff0000', text_color: '#ffffff' });
    fx.store.insertEntry(fx.ws, { title: 'Old', publish_at: '2025-01-01' });
    fx.store.insertEntry(fx.ws, { title: 'New', publish_at: '2026-01-01' });
    const c = fx.client();
    const ws = await c.getWorkspace();
    expect(ws.identifier).toBe(fx.ws.info.identifier);
    expect(ws.created_at).toMatch(TS);
    const all = await c.listEntries();
    expect(all.map((e) => e.title)).toEqual(['New', 'Old']);
    expect(all[0]!.publish_at).toMatch(TS);
    expect((await c.listEntries({ limit: 1 })).map((e) => e.title)).toEqual(['New']);
    expect((await c.getEntry(all[1]!.identifier)).title).toBe('Old');
    await expect(c.getEntry('missing')).rejects.toMatchObject({ code: 'E_NOT_FOUND', status: 404 });
    expect(await c.listTags()).toEqual([{ name: 'Fix', slug: 'fix', bg_color: '#ff0000', text_color: '#ffffff' }]);
  });

  it('create entry: published, scheduled, draft; 422 for a bad date', async () => {
    fx = await emulatorFixture();
    const c = fx.client();
    const today = serviceTimestamp(Date.now()).slice(0, 10);
    const published = await c.createEntry({ title: 'Now', slug: 'now', is_published: true, publish_at: today, html: '<p>x</p>' });
    expect(published.entry).toMatchObject({ status: 'published', slug: 'now', content: '<p>x</p>' });
    const scheduled = await c.createEntry({ title: 'Later', is_published: true, publish_at: '2999-01-01' });
    expect(scheduled.entry?.status).toBe('scheduled');
    const draft = await c.createEntry({ title: 'Draft' });
    expect(draft.entry?.status).toBe('draft');
    const err = await c.createEntry({ title: 'Bad', publish_at: '2026-13-45' }).catch((e: unknown) => e as ChangelogSyncError);
    expect(err).toMatchObject({ code: 'E_VALIDATION', status: 422 });
    expect((err as ChangelogSyncError).message).toContain('publish_at: The publish at field must match the format Y-m-d.');
  });

  it('public latest entry: {uuid, date} by default, plus the fields the workspace exposes', async () => {
    fx = await emulatorFixture();
    const e = fx.store.insertEntry(fx.ws, { title: 'Latest', slug: 'latest', publish_at: '2026-02-02', tags: ['New'] });
    fx.store.insertEntry(fx.ws, { title: 'Draft', publish_at: '2026-03-03', status: 'draft' });
    const c = fx.client({ token: undefined });
    expect(await c.getLatestEntry(fx.ws.info.identifier)).toEqual({ uuid: e.identifier, date: '2026-02-02T00:00:00.000000Z', content: '' });
    fx.ws.latestFields = ['title', 'slug', 'tags'];
    expect(await c.getLatestEntry(fx.ws.info.identifier)).toMatchObject({ uuid: e.identifier, title: 'Latest', slug: 'latest', tags: ['New'] });
    await expect(c.getLatestEntry('no-such-workspace')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('subscribers: list, add (verified_at defaults to today), delete (answers the emails removed)', async () => {
    fx = await emulatorFixture();
    const c = fx.client();
    const added = await c.addSubscribers([
      { name: 'Ada', email: 'ada@example.com', verified_at: '2024-05-06' },
      { name: 'Bob', email: 'bob@example.com' },
    ]);
    expect(added[0]).toMatchObject({ email: 'ada@example.com', verified_at: '2024-05-06T00:00:00.000000Z' });
    expect(added[1]!.verified_at).toBe(`${serviceTimestamp(Date.now()).slice(0, 10)}T00:00:00.000000Z`);
    expect(added[1]!.created_at).toMatch(TS);
    expect((await c.addSubscribers([{ name: 'Ada', email: 'ada@example.com' }])).length).toBe(0);
    expect((await c.listSubscribers()).map((s) => s.email)).toEqual(['ada@example.com', 'bob@example.com']);
    expect(await c.removeSubscribers(['bob@example.com', 'nobody@example.com'])).toEqual(['bob@example.com']);
    await expect(c.addSubscribers([{ name: 'X', email: 'not-an-email' }])).rejects.toMatchObject({ code: 'E_VALIDATION' });
  });
});

describe('authentication', () => {
  it('a wrong token: 401 JSON with Accept: application/json -> E_AUTH', async () => {
    fx = await emulatorFixture();
    await expect(fx.client({ token: 'wrong' }).listEntries()).rejects.toMatchObject({ code: 'E_AUTH', status: 401 });
  });

  it('without Accept: application/json the emulator redirects to a login page, as the service does', async () => {
    fx = await emulatorFixture();
    const res = await request(`${fx.emu.url}/api/entries`, { method: 'GET' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/login');
    await res.body.text();
  });

  it('tokens are per workspace: each sees only its own entries', async () => {
    fx = await emulatorFixture();
    const other = fx.store.addWorkspace({ name: 'Other', tokens: ['other-token'] });
    fx.store.insertEntry(other, { title: 'Theirs' });
    fx.store.insertEntry(fx.ws, { title: 'Ours' });
    expect((await fx.client().listEntries()).map((e) => e.title)).toEqual(['Ours']);
    expect((await fx.client({ token: 'other-token' }).getWorkspace()).name).toBe('Other');
  });
});

describe('limits', () => {
  it('enforces the per-minute limit with 429 and Retry-After, and advertises x-ratelimit-*', async () => {
    fx = await emulatorFixture({ limits: { perMinute: 3, windowMs: 60_000 } });
    const headers = { accept: 'application/json', authorization: `Bearer ${fx.token}` };
    const seen: Array<[number, string | undefined, string | undefined]> = [];
    for (let i = 0; i < 4; i++) {
      const res = await request(`${fx.emu.url}/api/tags`, { headers });
      await res.body.text();
      seen.push([res.statusCode, res.headers['x-ratelimit-remaining'] as string, res.headers['retry-after'] as string]);
    }
    expect(seen).toEqual([
      [200, '2', undefined],
      [200, '1', undefined],
      [200, '0', undefined],
      [429, '0', '60'],
    ]);
  });

  it('the client paces itself under the advertised limit: no 429 on a compressed window', async () => {
    fx = await emulatorFixture({ limits: { perMinute: 5, windowMs: 200 } });
    const c = fx.client();
    for (let i = 0; i < 12; i++) await c.listTags();
    expect(fx.emu.log.filter((r) => r.status === 429)).toHaveLength(0);
    expect(fx.emu.log).toHaveLength(12);
  });

  it('enforces the daily limit', async () => {
    fx = await emulatorFixture({ limits: { perMinute: 100, perDay: 2 } });
    // A client that does not know the daily limit meets the service's 429 ...
    const unaware = fx.client({ rateLimitRetries: 0, budget: new RateBudget() });
    await unaware.listTags();
    await unaware.listTags();
    await expect(unaware.listTags()).rejects.toMatchObject({ code: 'E_RATE_LIMITED', status: 429 });
    // ... one whose budget knows it refuses before sending.
    const sent = fx.emu.log.length;
    const aware = fx.client({ budget: new RateBudget({ perDay: 2, ledger: [[Math.floor(Date.now() / 60_000), 2]] }) });
    await expect(aware.listTags()).rejects.toMatchObject({ code: 'E_RATE_LIMITED', status: undefined });
    expect(fx.emu.log.length).toBe(sent);
  });
});
