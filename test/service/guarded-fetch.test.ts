// The one fetcher for requests content can aim: which addresses it never
// connects to, in every form; the loopback allowance, which only a service URL on loopback
// gives; the body left unread for a check. A real HTTP server on loopback, port 0; names
// resolve through a lookup of the test's. The same rules through the real CLI, in a network
// namespace with a listener on 169.254.169.254: test/e2e/sync/metadata-address.test.ts.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal, allowsLoopback, GuardedFetcher, type GuardedFetcherOptions, type Lookup } from '../../src/service/guarded-fetch.js';

let server: Server;
let origin = '';
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url === '/to-private') res.writeHead(302, { location: 'http://10.1.2.3/x.png' }).end();
    else res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const resolveTo = (address: string): Lookup => (_host, _opts, cb) => cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);

async function get(url: string, options: GuardedFetcherOptions = {}, readBody = true) {
  const f = new GuardedFetcher(options);
  try {
    return await f.get(url, { accept: 'image/*', allows: (m) => m.startsWith('image/'), what: 'an image', readBody });
  } finally {
    await f.close();
  }
}

describe('addresses', () => {
  it('refuses private, link-local, metadata, unspecified, multicast and reserved ones, in IPv4, IPv6, mapped and NAT64 forms', () => {
    const refused: Array<[string, RegExp]> = [
      ['169.254.169.254', /metadata/],
      ['::ffff:169.254.169.254', /metadata/],
      ['::ffff:a9fe:a9fe', /metadata/],
      ['64:ff9b::a9fe:a9fe', /metadata/],
      ['100.100.100.200', /metadata/],
      ['fd00:ec2::254', /metadata/],
      ['169.254.1.1', /link-local/],
      ['fe80::1', /link-local/],
      ['10.0.0.1', /private/],
      ['172.16.5.4', /private/],
      ['192.168.1.1', /private/],
      ['100.64.0.1', /private/],
      ['fd12::1', /private/],
      ['::ffff:10.0.0.1', /private/],
      ['64:ff9b::a00:1', /private/],
      ['0.0.0.0', /unspecified/],
      ['::', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
    ];
    for (const [address, label] of refused) {
      expect(addressRefusal(address), address).toMatch(label);
      expect(addressRefusal(address, true), `${address}, loopback allowed`).toMatch(label);
    }
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '64:ff9b::5db8:d70e', 'not-an-address']) expect(addressRefusal(address), address).toBeUndefined();
  });

  it('refuses loopback unless allowed, and only a service URL on loopback allows it', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(addressRefusal(address), address).toMatch(/loopback/);
      expect(addressRefusal(address, true), address).toBeUndefined();
    }
    expect(allowsLoopback('http://127.0.0.1:4010')).toBe(true);
    expect(allowsLoopback('http://[::1]:4010')).toBe(true);
    expect(allowsLoopback('http://localhost:4010')).toBe(true);
    expect(allowsLoopback(undefined)).toBe(true);
    expect(allowsLoopback('https://changelog.example.com')).toBe(false);
    expect(allowsLoopback('http://10.0.0.5')).toBe(false);
  });
});

describe('a request', () => {
  it('to loopback is refused without the allowance, before any connection, by address or by name', async () => {
    const before = seen.length;
    expect(await get(`${origin}/a.png`)).toEqual({ ok: false, reason: '127.0.0.1 is a loopback address', refused: true });
    const port = new URL(origin).port;
    expect(await get(`http://images.example.test:${port}/a.png`, { lookup: resolveTo('127.0.0.1') })).toEqual({ ok: false, reason: 'images.example.test resolves to 127.0.0.1, a loopback address', refused: true });
    expect(seen.length).toBe(before);
  });

  it('with the allowance reaches loopback, but a redirect from there to a private address is refused', async () => {
    expect(await get(`${origin}/a.png`, { allowLoopback: true })).toMatchObject({ ok: true, body: Buffer.alloc(64) });
    expect(await get(`${origin}/to-private`, { allowLoopback: true })).toEqual({ ok: false, reason: 'redirected to http://10.1.2.3: 10.1.2.3 is a private address', refused: true });
  });

  it('for a check reads no body', async () => {
    expect(await get(`${origin}/a.png`, { allowLoopback: true }, false)).toMatchObject({ ok: true, body: Buffer.alloc(0), contentType: 'image/png' });
  });
});
