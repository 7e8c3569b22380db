// A static file server for a built site on a free loopback port: the site's 404.html for
// unknown paths, with status 404, as GitHub Pages does.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sirv from 'sirv';

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `dir` on 127.0.0.1 (port 0).
 * @param extra routes answered before the files (e.g. a page that embeds the widget).
 * @param options.prefix serve the site under this path only (`/changelog/`), as GitHub
 *   Pages serves a project site: the site's 404 page for unknown paths under it, a bare 404
 *   everywhere else.
 */
export async function serveStatic(dir: string, extra: Record<string, { type: string; body: string }> = {}, options: { prefix?: string } = {}): Promise<StaticServer> {
  const assets = sirv(dir, { dev: true, etag: false });
  const prefix = options.prefix ?? '/';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const route = extra[path];
    if (route) {
      res.writeHead(200, { 'content-type': route.type });
      res.end(route.body);
      return;
    }
    if (!path.startsWith(prefix)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('outside the site');
      return;
    }
    req.url = `/${(req.url ?? '/').slice(prefix.length)}`;
    assets(req, res, () => {
      void readFile(join(dir, '404.html')).then(
        (body) => {
          res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
          res.end(body);
        },
        () => {
          res.writeHead(404);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
