// The emulator's fault injection and request log, over HTTP, in-process and from the CLI.
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogRecord } from '../../src/emulator/server.js';
import { CLI, tempDir } from '../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';

let fx: EmulatorFixture;
afterEach(async () => fx?.close());

async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
  try {
    const res = await request(`${fx.emu.url}${path}`, {
      method,
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${fx.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  } catch (err) {
    return { status: 0, headers: {} as Record<string, string | string[] | undefined>, text: '', error: (err as Error & { code?: string }).code ?? String(err) };
  }
}

const create = (slug: string) => call('POST', '/api/entry', { title: slug, slug });

/** The body of a `POST /api/entry` answer, in any of its shapes (undefined: empty). */
type CreateAnswer = { success?: unknown; data?: { identifier?: unknown; title?: unknown } } | undefined;

/**
 * The emulator's sleep, held by the test: every wait emits `sleep` with the ms asked and
 * the function that ends it, so a test acts at the exact point where a stall began.
 */
function heldSleep() {
  const sleeps = new EventEmitter<{ sleep: [ms: number, end: () => void] }>();
  return {
    sleep: (ms: number) => new Promise<void>((end) => sleeps.emit('sleep', ms, end)),
    /** The next wait to begin: its ms and the function that ends it. */
    next: () => once(sleeps, 'sleep') as Promise<[ms: number, end: () => void]>,
  };
}

/** A clock that only the emulator's sleep moves: durations in the request log are exact. */
function fakeClock() {
  const clock = { t: Date.UTC(2026, 10, 22, 12), slept: [] as number[] };
  return {
    clock,
    now: () => clock.t,
    sleep: (ms: number) => {
      clock.slept.push(ms);
      clock.t += ms;
      return Promise.resolve();
    },
  };
}

describe('faults', () => {
  it('drop after commit, every Nth: the entry exists, the client gets no answer', async () => {
    fx = await emulatorFixture({ faults: { dropAfterCommitEvery: 2 } });
    const answers = [await create('a'), await create('b'), await create('c'), await create('d')];
    expect(answers.map((a) => a.status)).toEqual([201, 0, 201, 0]);
    expect(fx.store.listEntries(fx.ws).map((e) => e.slug).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(fx.emu.log.map((r) => [r.slug, r.dropped ?? false, r.fault])).toEqual([
      ['a', false, undefined],
      ['b', true, 'drop-after-commit'],
      ['c', false, undefined],
      ['d', true, 'drop-after-commit'],
    ]);
  });

  it('drop after commit with a probability, from a seeded random source', async () => {
    const draws = [0.9, 0.1, 0.9];
    fx = await emulatorFixture({ faults: { dropAfterCommitProbability: 0.5, random: () => draws.shift() ?? 0.9 } });
    expect([(await create('a')).status, (await create('b')).status, (await create('c')).status]).toEqual([201, 0, 201]);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(3);
  });

  it('5xx on a fraction of requests, before anything is done; or after committing a create', async () => {
    const draws = [0.1, 0.9];
    fx = await emulatorFixture({ faults: { serverErrorRate: 0.5, random: () => draws.shift() ?? 0.9 } });
    expect((await create('a')).status).toBe(500);
    expect((await create('b')).status).toBe(201);
    expect(fx.store.listEntries(fx.ws).map((e) => e.slug)).toEqual(['b']);
    fx.emu.faults.errorAfterCommitEvery = 2; // the 2nd create (c) commits, then answers 500
    fx.emu.faults.serverErrorRate = 0;
    expect((await create('c')).status).toBe(500);
    expect(fx.store.listEntries(fx.ws).map((e) => e.slug).sort()).toEqual(['b', 'c']);
  });

  it('latency delays every answer', async () => {
    const { clock, now, sleep } = fakeClock();
    fx = await emulatorFixture({ faults: { latencyMs: 150 }, now, sleep });
    await call('GET', '/api/tags');
    expect(clock.slept).toEqual([150]);
    expect(fx.emu.log[0]!.ms).toBeGreaterThanOrEqual(150);
  });

  it('a 429 burst with Retry-After, then normal answers', async () => {
    fx = await emulatorFixture({ faults: { rateLimitBurst: 2, rateLimitBurstRetryAfter: 7 } });
    const a = await call('GET', '/api/tags');
    const b = await call('GET', '/api/tags');
    const c = await call('GET', '/api/tags');
    expect([a.status, b.status, c.status]).toEqual([429, 429, 200]);
    expect(a.headers['retry-after']).toBe('7');
    expect(fx.emu.log.map((r) => r.fault)).toEqual(['429-burst', '429-burst', undefined]);
  });

  it('an HTML body or malformed JSON instead of the envelope', async () => {
    fx = await emulatorFixture({ faults: { htmlBody: true } });
    const html = await call('GET', '/api/entries');
    expect([html.status, html.text.startsWith('<!doctype html>')]).toEqual([200, true]);
    fx.emu.faults.htmlBody = false;
    fx.emu.faults.malformedJson = true;
    const bad = await call('GET', '/api/entries');
    expect(() => JSON.parse(bad.text) as unknown).toThrow();
  });

  it.each([
    ['entry', (j: CreateAnswer) => typeof j?.data?.identifier === 'string' && j.data.title === 'x'],
    ['identifier', (j: CreateAnswer) => typeof j?.data?.identifier === 'string' && j.data.title === undefined],
    ['success-only', (j: CreateAnswer) => j?.success === true && j.data === undefined],
    ['empty', (j: CreateAnswer) => j === undefined],
  ] as const)('POST /api/entry answered with the %s shape', async (shape, check) => {
    fx = await emulatorFixture({ faults: { createResponse: shape } });
    const res = await call('POST', '/api/entry', { title: 'x', slug: 'x' });
    expect(res.status).toBe(201);
    expect(check(res.text === '' ? undefined : (JSON.parse(res.text) as CreateAnswer))).toBe(true);
  });

  it('a stalled create, before commit: the entry appears only when the stall ends', async () => {
    const held = heldSleep();
    fx = await emulatorFixture({ faults: { stallCreateEvery: 1, stallMs: 300 }, sleep: held.sleep });
    const answer = create('slow');
    const [ms, end] = await held.next();
    expect(ms).toBe(300);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(0);
    end();
    expect((await answer).status).toBe(201);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(1);
    expect(fx.emu.log[0]!.fault).toBe('stall-before-commit');
  });

  it('a stalled create, after commit: the entry exists while the answer is late', async () => {
    const held = heldSleep();
    fx = await emulatorFixture({ faults: { stallCreateEvery: 1, stallMs: 300, stallAfterCommit: true }, sleep: held.sleep });
    const answer = create('late');
    const [ms, end] = await held.next();
    expect(ms).toBe(300);
    expect(fx.store.listEntries(fx.ws)).toHaveLength(1);
    expect(fx.emu.log[0]!.status).toBe(0); // not answered yet
    end();
    expect((await answer).status).toBe(201);
    expect(fx.emu.log[0]!.fault).toBe('stall-after-commit');
  });
});

describe('the request log', () => {
  it('records arrival time, method, path, status, duration and the slug sent; emits request and response', async () => {
    fx = await emulatorFixture({ limits: { perMinute: 2, windowMs: 60_000 } });
    const events: string[] = [];
    fx.emu.events.on('request', (r) => events.push(`> ${r.method} ${r.path} ${r.status}`));
    fx.emu.events.on('response', (r) => events.push(`< ${r.method} ${r.path} ${r.status}`));
    const before = Date.now();
    await call('GET', '/api/entries?limit=1');
    await create('logged');
    await call('GET', '/api/tags'); // over the limit of 2: 429, not counted
    expect(fx.emu.log.map((r: RequestLogRecord) => [r.method, r.path, r.status, r.slug])).toEqual([
      ['GET', '/api/entries?limit=1', 200, undefined],
      ['POST', '/api/entry', 201, 'logged'],
      ['GET', '/api/tags', 429, undefined],
    ]);
    for (const r of fx.emu.log) {
      expect(r.at).toBeGreaterThanOrEqual(before);
      expect(r.ms).toBeGreaterThanOrEqual(0);
      expect(r.workspace).toBe(fx.ws.info.identifier);
    }
    expect(events).toEqual([
      '> GET /api/entries?limit=1 0',
      '< GET /api/entries?limit=1 200',
      '> POST /api/entry 0',
      '< POST /api/entry 201',
      '> GET /api/tags 0',
      '< GET /api/tags 429',
    ]);
  });

  it('counts a request against the limits when it arrives, not after its processing time', async () => {
    const { clock, now, sleep } = fakeClock();
    fx = await emulatorFixture({ limits: { perMinute: 1, windowMs: 400 }, faults: { latencyMs: 300 }, now, sleep });
    await call('GET', '/api/tags'); // arrives at t, answered at t+300: counted at t
    clock.t += 150; // t+450: a window after its arrival, less than one after its answer
    expect((await call('GET', '/api/tags')).status).toBe(200);
  });

  it('a request leaves the minute window one window after it arrived: x-ratelimit-remaining counts only the last window', async () => {
    const { clock, now, sleep } = fakeClock();
    fx = await emulatorFixture({ limits: { perMinute: 3, windowMs: 400 }, now, sleep });
    const remaining = async () => (await call('GET', '/api/tags')).headers['x-ratelimit-remaining'];
    expect(await remaining()).toBe('2'); // t
    clock.t += 200;
    expect(await remaining()).toBe('1'); // t+200
    clock.t += 250; // t+450: the first has left the window, the second has not
    expect(await remaining()).toBe('1');
    clock.t += 1000; // all have left
    expect(await remaining()).toBe('2');
  });
});

describe('from the command line', () => {
  it('changelog-sync emulator takes the faults and writes the request log as JSON lines', async () => {
    const { dir, cleanup } = await tempDir();
    const logFile = join(dir, 'requests.jsonl');
    const child = spawn(process.execPath, [CLI, 'emulator', '--drop-after-commit-every', '2', '--create-response', 'identifier', '--latency-ms', '5', '--request-log', logFile], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', () => reject(new Error(`emulator exited: ${out}`)));
      });
      expect(out).toContain('faults: createResponse=identifier, dropAfterCommitEvery=2, latencyMs=5');
      const post = (slug: string) =>
        request(`${url}/api/entry`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer emulator-token' },
          body: JSON.stringify({ title: slug, slug }),
        }).then(
          async (r) => [r.statusCode, (JSON.parse(await r.body.text()) as NonNullable<CreateAnswer>).data] as const,
          () => [0, undefined] as const,
        );
      const first = await post('one');
      expect(first[0]).toBe(201);
      expect(Object.keys(first[1] ?? {})).toEqual(['identifier']);
      expect((await post('two'))[0]).toBe(0);
      // The log line is appended in the same turn as the answer (or the drop); once the
      // process has stopped, every line it will ever write is in the file.
      child.kill('SIGTERM');
      await once(child, 'close');
      const lines = (await readFile(logFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as RequestLogRecord);
      expect(lines.map((l) => [l.method, l.path, l.status, l.slug, l.dropped ?? false])).toEqual([
        ['POST', '/api/entry', 201, 'one', false],
        ['POST', '/api/entry', 201, 'two', true],
      ]);
      expect(typeof lines[0]!.at).toBe('number');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'close');
      }
      await cleanup();
    }
  });
});
