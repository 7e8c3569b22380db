// The check push makes before it creates an entry: each image URL must
// answer 200 with an image content type, within a time limit, after at most 5 redirects, to
// http or https only. Against a real HTTP server on a loopback port, with the loopback
// allowance the commands give a service on loopback (without it, loopback is refused: the
// guarded fetcher's rules, test/service/guarded-fetch.test.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REDIRECTS, probeImage as probe, probeImages, type ProbeOptions } from '../../../src/sync/push/image-probe.js';

const probeImage = (url: string, options: ProbeOptions = {}) => probe(url, { allowLoopback: true, ...options });

let server: Server;
let base = '';
/** Requests the server saw, by path. */
const seen: string[] = [];
/** Requests that never get an answer (the time limit): released after the test. */
const held: Array<() => void> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push(url.pathname);
    const hop = /^\/hop\/(\d+)$/.exec(url.pathname);
    if (url.pathname === '/shot.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(1024));
    } else if (url.pathname === '/page.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<p>not an image</p>');
    } else if (hop) {
      const n = Number(hop[1]);
      res.writeHead(302, { location: n === 0 ? '/shot.png' : `/hop/${n - 1}` });
      res.end();
    } else if (url.pathname === '/to-file') {
      res.writeHead(301, { location: 'file:///etc/passwd' });
      res.end();
    } else if (url.pathname === '/slow.png') {
      held.push(() => res.destroy());
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('missing');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const release of held) release();
  // undici keeps its connections alive: close them rather than wait for their idle time.
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('probeImage', () => {
  it('live: 200 with an image content type', async () => {
    expect(await probeImage(`${base}/shot.png`)).toEqual({ live: true });
  });

  it('not live: 404, or 200 that is not an image', async () => {
    expect(await probeImage(`${base}/missing.png`)).toEqual({ live: false, reason: 'HTTP 404' });
    expect(await probeImage(`${base}/page.html`)).toEqual({ live: false, reason: 'not an image (Content-Type "text/html; charset=utf-8")' });
  });

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    // /hop/4 is 5 redirects away from the image; /hop/5 is 6.
    expect(await probeImage(`${base}/hop/${MAX_REDIRECTS - 1}`)).toEqual({ live: true });
    expect(await probeImage(`${base}/hop/${MAX_REDIRECTS}`)).toEqual({ live: false, reason: `more than ${MAX_REDIRECTS} redirects` });
  });

  it('http and https only, also after a redirect', async () => {
    expect(await probeImage('file:///etc/passwd')).toEqual({ live: false, reason: 'only http and https URLs are requested, not file', refused: true });
    expect(await probeImage(`${base}/to-file`)).toEqual({ live: false, reason: 'redirected to file://: only http and https URLs are requested, not file', refused: true });
  });

  it('gives up after its time limit', async () => {
    const before = held.length;
    const outcome = probeImage(`${base}/slow.png`, { timeoutMs: 300 });
    expect(await outcome).toEqual({ live: false, reason: 'no complete answer within 0.3 s' });
    expect(held.length).toBe(before + 1);
  });

  it('a server that is not there: not live, with the reason', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await probeImage(`http://127.0.0.1:${port}/x.png`);
    expect(outcome.live).toBe(false);
    expect(outcome).toMatchObject({ reason: expect.stringMatching(/^ECONNREFUSED/) as string });
  });

  it('never requests a loopback address unless allowed (a service on loopback), nor a metadata address ever', async () => {
    const before = seen.length;
    expect(await probe(`${base}/shot.png`)).toEqual({ live: false, reason: '127.0.0.1 is a loopback address', refused: true });
    expect(await probeImage('http://169.254.169.254/latest/meta-data/')).toEqual({ live: false, reason: '169.254.169.254 is a cloud metadata address', refused: true });
    expect(seen.length).toBe(before);
  });
});

describe('probeImages', () => {
  it('asks for each URL once', async () => {
    seen.length = 0;
    const outcomes = await probeImages([`${base}/shot.png`, `${base}/missing.png`, `${base}/shot.png`], (u) => probeImage(u));
    expect([...outcomes.keys()]).toEqual([`${base}/shot.png`, `${base}/missing.png`]);
    expect(seen.sort()).toEqual(['/missing.png', '/shot.png']);
  });
});
