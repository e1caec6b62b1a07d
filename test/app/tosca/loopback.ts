/** A loopback HTTP server for fetch tests: routes answer with fixed bodies, redirects or silence; hits are counted. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type Route = (request: IncomingMessage, response: ServerResponse) => void;

export type Loopback = {
  readonly url: (path: string) => string;
  readonly hits: Map<string, number>;
  close(): Promise<void>;
};

/** Starts a server on 127.0.0.1 (a free port) serving `routes`; unknown paths answer 404. */
export const serve = async (routes: Readonly<Record<string, Route>>): Promise<Loopback> => {
  const hits = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (route === undefined) {
      response.writeHead(404).end('not found');
      return;
    }
    route(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

export const body =
  (content: string | Uint8Array, type = 'application/octet-stream'): Route =>
  (_, response) => {
    response.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(content) }).end(content);
  };

export const redirect =
  (location: string, status = 302): Route =>
  (_, response) => {
    response.writeHead(status, { location }).end();
  };

export const status =
  (code: number): Route =>
  (_, response) => {
    response.writeHead(code).end(`status ${code}`);
  };

/**
 * What a fetcher needs to reach `serve`'s server: plain http and the loopback address, both
 * refused by default (an admin allows them with --tosca-allow-http and --tosca-allow-host).
 */
export const LOOPBACK_ALLOWED = { allowHttp: true, allowHosts: ['127.0.0.1'] } as const;
