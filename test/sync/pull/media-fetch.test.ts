// Downloads of pulled images (their limits, and the addresses never fetched): a real
// HTTP server on loopback, port 0, reached with the loopback allowance the commands give a
// service on loopback; host names resolve through a lookup of the test's, so nothing leaves
// the machine. The address rules themselves: test/service/guarded-fetch.test.ts.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateBudget } from '../../../src/service/rate-budget.js';
import { fetchImage } from '../../../src/sync/pull/media-fetch.js';
import { GuardedFetcher, type GuardedFetcherOptions, type Lookup } from '../../../src/service/guarded-fetch.js';
import type { ImageBounds } from '../../../src/core/image-bounds.js';
import { sniffType } from '../../../src/sync/pull/media-type.js';
import { GIF_1X1, PNG_1X1, SVG_WITH_SCRIPT, gifDeclaring, pngDeclaring } from '../../helpers/sync/media.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
/** Requests the server received, by path. */
const seen: string[] = [];
let server: Server;
let origin = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const h = routes.get(req.url ?? '');
    if (h) h(req, res);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const serve = (path: string, type: string, body: Buffer | string): void => {
  routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) }).end(body));
};
const redirect = (path: string, location: string): void => {
  routes.set(path, (_req, res) => res.writeHead(302, { location }).end());
};

/** Resolves every name to the given address (no DNS query leaves the machine). */
const resolveTo = (address: string): Lookup => (_host, _opts, cb) => cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);

async function fetchOne(url: string, options: GuardedFetcherOptions & { bounds?: ImageBounds } = {}) {
  const f = new GuardedFetcher({ lookup: resolveTo('127.0.0.1'), allowLoopback: true, ...options });
  try {
    return await fetchImage(f, url, options.bounds);
  } finally {
    await f.close();
  }
}

describe('image types', () => {
  it('are told by their bytes', () => {
    expect(sniffType(PNG_1X1)?.mime).toBe('image/png');
    expect(sniffType(GIF_1X1)?.mime).toBe('image/gif');
    expect(sniffType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))?.mime).toBe('image/jpeg');
    expect(sniffType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))?.mime).toBe('image/webp');
    expect(sniffType(Buffer.from('\0\0\0\x1cftypavif\0\0\0\0avifmif1'))?.mime).toBe('image/avif');
    expect(sniffType(Buffer.from('\0\0\0\x18ftypmp42\0\0\0\0mp42isom'))).toBeUndefined();
    expect(sniffType(Buffer.from('<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'))?.mime).toBe('image/svg+xml');
    expect(sniffType(Buffer.from('<html><svg></svg></html>'))).toBeUndefined();
    expect(sniffType(Buffer.from('GIF88a'))).toBeUndefined();
  });
});

describe('a download', () => {
  it('keeps an image whose bytes are the type its Content-Type says', async () => {
    serve('/a.png', 'image/png', PNG_1X1);
    const got = await fetchOne(`${origin}/a.png`);
    expect(got.reason).toBeUndefined();
    expect(got.bytes).toEqual(PNG_1X1);
  });

  it('refuses a type that is not an image, and bytes that are not the declared type', async () => {
    serve('/page', 'text/html', '<html></html>');
    serve('/fake.png', 'image/png', '<html>not a png</html>');
    serve('/gif-as-png', 'image/png', GIF_1X1);
    expect((await fetchOne(`${origin}/page`)).reason).toMatch(/not an image type \(Content-Type "text\/html"\)/);
    expect((await fetchOne(`${origin}/fake.png`)).reason).toMatch(/not a PNG, JPEG, GIF, WebP, AVIF or SVG/);
    expect((await fetchOne(`${origin}/gif-as-png`)).reason).toMatch(/the bytes are image\/gif, not the image\/png/);
  });

  it('refuses an image over the size cap, by its Content-Length and while streaming one without', async () => {
    const big = Buffer.concat([PNG_1X1, Buffer.alloc(5000)]);
    serve('/big.png', 'image/png', big);
    routes.set('/chunked.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
      res.write(PNG_1X1);
      res.end(Buffer.alloc(5000));
    });
    const limits = { maxBytes: 1000 };
    expect((await fetchOne(`${origin}/big.png`, { limits })).reason).toMatch(`larger than 1000 bytes (${big.length} bytes)`);
    expect((await fetchOne(`${origin}/chunked.png`, { limits })).reason).toMatch(/larger than/);
  });

  it('gives up at the time cap', async () => {
    const arrived = new Promise<void>((resolve) => routes.set('/stall.png', () => resolve())); // never answers
    const got = fetchOne(`${origin}/stall.png`, { limits: { timeoutMs: 300 } });
    await arrived;
    expect((await got).reason).toMatch(/no complete answer within 0.3 s/);
  });

  it('follows at most five redirects, each checked', async () => {
    for (let i = 0; i < 7; i++) redirect(`/r${i}`, `/r${i + 1}`);
    serve('/r7', 'image/png', PNG_1X1);
    redirect('/two', '/r5');
    expect((await fetchOne(`${origin}/two`)).bytes).toEqual(PNG_1X1);
    expect((await fetchOne(`${origin}/r0`)).reason).toMatch(/more than 5 redirects/);
  });

  it('only takes http and https, on the first URL and on redirects', async () => {
    redirect('/to-ftp', 'ftp://127.0.0.1/a.png');
    redirect('/to-file', 'file:///etc/passwd');
    expect((await fetchOne('ftp://127.0.0.1/a.png')).reason).toMatch(/only http and https/);
    expect((await fetchOne(`${origin}/to-ftp`)).reason).toMatch(/redirected to ftp:.*only http and https/);
    expect((await fetchOne(`${origin}/to-file`)).reason).toMatch(/only http and https/);
  });

  it('never connects to a link-local or metadata address: as the URL, after DNS, or on a redirect', async () => {
    expect((await fetchOne('http://169.254.169.254/latest/meta-data/')).reason).toMatch(/169\.254\.169\.254 is a cloud metadata address/);
    expect((await fetchOne('http://[fe80::1]/a.png')).reason).toMatch(/fe80::1 is a link-local/);
    // A name that resolves there is refused at connection time, whatever it is called.
    expect((await fetchOne('http://images.example.test/a.png', { lookup: resolveTo('169.254.169.254') })).reason).toMatch(/images\.example\.test resolves to 169\.254\.169\.254/);
    expect((await fetchOne('http://images.example.test/a.png', { lookup: resolveTo('fe80::2') })).reason).toMatch(/resolves to fe80::2/);
    redirect('/to-metadata', 'http://169.254.169.254/latest/meta-data/');
    redirect('/to-named-metadata', 'http://metadata.example.test/x.png');
    expect((await fetchOne(`${origin}/to-metadata`)).reason).toMatch(/redirected to http:\/\/169\.254\.169\.254.*metadata/);
    // The first hop's name resolves to loopback, the redirect's to the metadata address.
    const lookup: Lookup = (host, opts, cb) => resolveTo(host === 'metadata.example.test' ? '169.254.169.254' : '127.0.0.1')(host, opts, cb);
    const port = new URL(origin).port;
    expect((await fetchOne(`http://images.example.test:${port}/to-named-metadata`, { lookup })).reason).toMatch(/metadata\.example\.test resolves to 169\.254\.169\.254/);
  });

  it('refuses a raster image whose header declares more than the bounds, before anything decodes it', async () => {
    serve('/tall.png', 'image/png', pngDeclaring(1, 10_000_000));
    serve('/wide.png', 'image/png', pngDeclaring(10_000_000, 1));
    serve('/square.png', 'image/png', pngDeclaring(50_000, 50_000));
    serve('/screen.gif', 'image/gif', gifDeclaring(65_535, 65_535));
    serve('/ok.png', 'image/png', pngDeclaring(4000, 3000));
    expect((await fetchOne(`${origin}/tall.png`)).reason).toBe('too large to decode: 1 x 10,000,000 pixels: taller than 16,384 (maxImageSide)');
    expect((await fetchOne(`${origin}/wide.png`)).reason).toBe('too large to decode: 10,000,000 x 1 pixels: wider than 16,384 (maxImageSide)');
    expect((await fetchOne(`${origin}/square.png`)).reason).toMatch(/50,000 x 50,000 pixels: wider than/);
    expect((await fetchOne(`${origin}/screen.gif`)).reason).toMatch(/65,535 x 65,535 pixels: wider than/);
    expect((await fetchOne(`${origin}/ok.png`)).reason).toBeUndefined();
    // Configurable: 12 megapixels is more than 10.
    expect((await fetchOne(`${origin}/ok.png`, { bounds: { maxSide: 16_384, maxMegapixels: 10 } })).reason).toBe('too large to decode: 4,000 x 3,000 pixels: more than 10 megapixels (maxImageMegapixels)');
  });

  it('stores an SVG sanitised: no script, no event handler, no external reference', async () => {
    serve('/evil.svg', 'image/svg+xml; charset=utf-8', SVG_WITH_SCRIPT);
    const got = await fetchOne(`${origin}/evil.svg`);
    const text = got.bytes!.toString('utf8');
    expect(text).toMatch(/^<svg /);
    expect(text).toContain('<rect');
    expect(text).not.toMatch(/script|onload|onclick|foreignObject|evil\.example|javascript/i);
    expect(got.reason === undefined && got.removed).toEqual(expect.arrayContaining(['<script>', 'onload', '<foreignObject>']));
  });

  it('takes a slot of the rate budget only for a URL on the service API origin', async () => {
    serve('/api-host.png', 'image/png', PNG_1X1);
    const budget = new RateBudget({ perMinute: 60, perDay: 1440 });
    await fetchOne(`${origin}/api-host.png`, { service: { origin: 'http://service.example.test', budget } });
    expect(budget.dayRemaining()).toBe(1440);
    await fetchOne(`${origin}/api-host.png`, { service: { origin, budget } });
    expect(budget.dayRemaining()).toBe(1439);
  });
});
