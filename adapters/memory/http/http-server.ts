/**
 * The memory cluster served over HTTP on loopback as a Kubernetes API endpoint, so any client
 * (client-node, kubectl, client-go) talks to the kit's in-memory API server — with its faults,
 * which reach the client as the HTTP answers they stand for (409, 429 + Retry-After, 500, 504,
 * a dropped connection), and its clock. Binds 127.0.0.1 only; bounds request bodies; every
 * request needs the bearer token of the generated kubeconfig. Requests past this front door are
 * answered by the route table (route-table.ts).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { WatchHandle } from '../../../core/ports/cluster.js';
import { clusterError } from '../../../core/ports/errors.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { sendError } from './http-answers.js';
import { respond, type ServableCluster, type ServerParts } from './route-table.js';
import { defined } from '../../../core/json/defined.js';

export type { ServableCluster } from './route-table.js';

export type ServeOptions = {
  /** Port on 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
  /** Largest request body accepted, in bytes (default 3 MiB, kube-apiserver's limit); larger answers 413. */
  readonly maxBodyBytes?: number;
  /**
   * `token` (default): every request needs the kubeconfig's bearer token (32 random bytes unless
   * `token` is given). `none`: no authentication — for kubectl and other client-go programs, which
   * do not send bearer tokens over plain HTTP; the endpoint still listens on loopback only.
   */
  readonly auth?: 'token' | 'none';
  readonly token?: string;
  /** Also write the kubeconfig to this file (mode 0600). */
  readonly kubeconfigPath?: string;
  /** Host names besides the loopback ones (`127.0.0.1`, `localhost`, `[::1]`) a request may name in `Host`. */
  readonly allowedHosts?: ReadonlyArray<string>;
};

export type ServedCluster = {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** A kubeconfig (YAML) for this endpoint: client-node's `loadFromString`, kubectl's `--kubeconfig`. */
  readonly kubeconfig: string;
  readonly kubeConfigPath?: string;
  /** Stops listening, ends watch streams and drops open connections. Idempotent. */
  close(): Promise<void>;
  /**
   * Leaves the endpoint up, its connections open, without keeping the process alive: how a run
   * ends when its client cannot be stopped (an in-process controller, whose requests the kit then
   * never answers). `close()` still closes it.
   */
  abandon(): void;
};

const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

class BodyTooLarge extends Error {}

const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/** Compares a presented credential in constant time (another local process may probe the port). */
const sameSecret = (presented: string, expected: string): boolean => {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const LOOPBACK_HOSTS: ReadonlyArray<string> = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Why a request is refused before anything else, or `undefined`. A web page in the user's browser
 * can send requests to loopback: by a rebound DNS name (its `Host` is the attacker's name) or
 * cross-site (its `Origin` is the page's). kubectl and client libraries send neither a foreign
 * `Host` nor any `Origin`, so only those are refused (issue 37).
 */
export const browserRefusal = (
  headers: IncomingMessage['headers'],
  port: number,
  allowedHosts: ReadonlyArray<string> = [],
): string | undefined => {
  const host = (headers.host ?? '').toLowerCase();
  const hostname = host.replace(/:\d+$/, '');
  if (![...LOOPBACK_HOSTS, ...allowedHosts].includes(hostname))
    return `Host ${JSON.stringify(host.slice(0, 100))} is not this server's: it answers requests to 127.0.0.1, localhost or [::1] only (a browser page reaching it through a rebound DNS name is refused)`;
  const origin = headers.origin;
  const own = [...LOOPBACK_HOSTS, ...allowedHosts].map((name) => `http://${name}:${port}`);
  if (origin !== undefined && !own.includes(origin.toLowerCase()))
    return `cross-site request from Origin ${JSON.stringify(origin.slice(0, 100))} refused: web pages may not write to this server`;
  if (headers['sec-fetch-site'] === 'cross-site') return 'cross-site browser request refused';
  return undefined;
};

/** The request body, or undefined once a 413 went out. */
const bodyOf = async (
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
): Promise<Buffer | undefined> => {
  try {
    return await readBody(request, limit);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    response.setHeader('Connection', 'close');
    sendError(response, clusterError('BadRequest', `Request entity too large: limit is ${limit}`, { code: 413 }));
    return undefined;
  }
};

/**
 * What every request passes before the route table: a browser's requests refused (`Host`,
 * `Origin`), the bearer token checked, the body read within the limit. `port()` is the port bound.
 */
const frontDoor =
  (server: ServerParts, options: ServeOptions, token: string, port: () => number) =>
  async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refusal = browserRefusal(request.headers, port(), options.allowedHosts);
    if (refusal !== undefined) {
      request.resume();
      return sendError(response, clusterError('Forbidden', refusal, { code: 403 }));
    }
    if (options.auth !== 'none' && !sameSecret(request.headers.authorization ?? '', `Bearer ${token}`)) {
      request.resume();
      return sendError(
        response,
        clusterError(
          'Unauthorized',
          'Unauthorized: send the bearer token of the kubeconfig serveMemoryCluster returned',
        ),
      );
    }
    const body = await bodyOf(request, response, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (body === undefined) return;
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    await respond(server, { request, response, url, method: request.method ?? 'GET', body });
  };

/** The HTTP server answering through `handle`, never leaving a client hanging on a defect of this adapter. */
const httpServer = (
  cluster: ServableCluster,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Server =>
  createServer((request, response) => {
    // The Date header on the cluster's clock, as kube-apiserver dates answers on its own: a kit run on
    // a manual clock answers the same bytes when replayed (a client's error text quotes the headers).
    response.sendDate = false;
    response.setHeader('date', new Date(cluster.clock.now()).toUTCString());
    handle(request, response).catch((error: unknown) => {
      // A defect in this adapter: answer 500 rather than leave the client hanging.
      if (!response.headersSent)
        sendError(
          response,
          clusterError(
            'Internal',
            `in-memory API server defect: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      else response.destroy();
    });
  });

/** Listens on 127.0.0.1 and answers the port bound. */
const listen = async (server: Server, port: number): Promise<number> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the HTTP server did not bind a TCP port');
  return address.port;
};

/** The open connections, so that `close()` drops them and `abandon()` lets the process exit. */
const openConnections = (server: Server): Set<Socket> => {
  const connections = new Set<Socket>();
  server.on('connection', (socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return connections;
};

/** `close` and `abandon` of a listening server. */
const lifecycle = (
  server: Server,
  watches: Set<WatchHandle>,
  connections: Set<Socket>,
): Pick<ServedCluster, 'close' | 'abandon'> => {
  let closing: Promise<void> | undefined;
  return {
    abandon: () => {
      server.unref();
      server.on('connection', (socket) => socket.unref());
      connections.forEach((socket) => socket.unref());
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        watches.forEach((watch) => watch.stop());
        watches.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
};

/** Serves `cluster` on 127.0.0.1 until `close()`. */
export const serveMemoryCluster = async (
  cluster: ServableCluster,
  options: ServeOptions = {},
): Promise<ServedCluster> => {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const parts: ServerParts = { cluster, watches: new Set<WatchHandle>() };
  let boundPort = 0;
  const server = httpServer(
    cluster,
    frontDoor(parts, options, token, () => boundPort),
  );
  const connections = openConnections(server);
  boundPort = await listen(server, options.port ?? 0);
  const url = `http://127.0.0.1:${boundPort}`;
  const kubeconfig = kubeconfigYaml(url, options.auth === 'none' ? undefined : token);
  if (options.kubeconfigPath !== undefined) await writeFile(options.kubeconfigPath, kubeconfig, { mode: 0o600 });
  return {
    url,
    kubeconfig,
    ...defined({ kubeConfigPath: options.kubeconfigPath }),
    ...lifecycle(server, parts.watches, connections),
  };
};
