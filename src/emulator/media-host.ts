/**
 * The emulator's image host (docs/service-interface.md#the-emulators-image-host): a second
 * origin, as the service's images have their own host, serving `GET /media/<name>` without a
 * token or rate limits, logged. Seeds name its images `{{media}}` (`<img src="{{media}}/x.svg">`),
 * which becomes its absolute URL once it listens.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorStore } from './store.js';

/** The placeholder for the image host's URL in seeded content. */
const MEDIA_PLACEHOLDER = '{{media}}';

/** One request the image host answered. */
export interface MediaRequest {
  path: string;
  status: number;
}

/**
 * Starts the image host of a store on a free loopback port, and fills in the placeholder of its entries.
 * @returns its `url` (`http://127.0.0.1:PORT/media`, what {@link MEDIA_PLACEHOLDER} becomes), its request `log`, and `close`.
 */
export async function startMediaHost(store: EmulatorStore, host: string) {
  const log: MediaRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://media').pathname;
    let name: string | undefined;
    try {
      name = path.startsWith('/media/') ? decodeURIComponent(path.slice('/media/'.length)) : undefined;
    } catch {
      name = undefined;
    }
    const file = name === undefined || req.method !== 'GET' ? undefined : store.media.get(name);
    const status = !file ? 404 : file.redirect !== undefined ? (file.status ?? 302) : 200;
    log.push({ path, status });
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    } else if (file.redirect !== undefined) {
      res.writeHead(status, { location: file.redirect }).end();
    } else {
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length), 'cache-control': 'public, max-age=31536000' }).end(file.body);
    }
  });
  const { origin, close } = await listen(server, 0, host);
  const url = `${origin}/media`;
  for (const ws of store.workspaces) {
    for (const e of ws.entries) e.content = withMediaUrl(e.content, url);
    // The workspace's images too (the demo's logo): on this host, whatever port serves the site.
    ws.info.logo_url = withMediaUrl(ws.info.logo_url, url);
    ws.info.og_image_url = withMediaUrl(ws.info.og_image_url, url);
  }
  return { url, log, close };
}

/**
 * Starts `server` on `host` and `port` (0: a free one), as the emulator's API and its image host are.
 * @returns its origin (`http://127.0.0.1:PORT`, an IPv6 address in brackets), its port, and a `close` that ends open connections too.
 * @throws the server's `listen` error (`EADDRINUSE`, `EADDRNOTAVAIL`).
 */
export async function listen(server: Server, port: number, host: string): Promise<{ origin: string; port: number; close: () => Promise<void> }> {
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const origin = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  return { origin, port: address.port, close };
}

/** Content with {@link MEDIA_PLACEHOLDER} replaced by the host's URL (in every string of Editor.js content). */
function withMediaUrl<T>(content: T, url: string): T {
  if (typeof content === 'string') return (content.includes(MEDIA_PLACEHOLDER) ? content.replaceAll(MEDIA_PLACEHOLDER, url) : content) as T;
  if (Array.isArray(content)) return content.map((c: unknown) => withMediaUrl(c, url)) as T;
  if (content && typeof content === 'object') return Object.fromEntries(Object.entries(content).map(([k, v]) => [k, withMediaUrl(v, url)])) as T;
  return content;
}
