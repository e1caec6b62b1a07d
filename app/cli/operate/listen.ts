/**
 * `--listen`/`--callback-listen` addresses: parsed before anything starts, and bound once to
 * prove they are free, so that a busy or forbidden port is one clear line at startup instead of
 * a failure after the controller has begun reconciling.
 */
import * as E from 'fp-ts/lib/Either.js';
import { createServer } from 'node:net';

export type ListenAddress = { readonly host: string; readonly port: number };

/** `[host]:port` or `port`; an empty host is every interface (0.0.0.0). */
export const parseListen = (flag: string, text: string): E.Either<string, ListenAddress> => {
  const colon = text.lastIndexOf(':');
  const host = colon < 0 ? '0.0.0.0' : text.slice(0, colon).replace(/^\[(.*)\]$/, '$1') || '0.0.0.0';
  const port = colon < 0 ? text : text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535)
    return E.left(`${flag} ${text}: expected [host]:port with a port from 0 to 65535, e.g. :8080 or 127.0.0.1:8080`);
  return E.right({ host, port: Number(port) });
};

const errorCode = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';

/** What a failed bind means for the user, and what to do. */
export const listenFailure = (flag: string, text: string, error: unknown): string => {
  const code = errorCode(error);
  const what =
    code === 'EADDRINUSE'
      ? 'the port is already in use by another process: stop it or pick another port'
      : code === 'EACCES'
        ? 'permission denied: ports below 1024 need privileges, pick a port above 1023'
        : code === 'EADDRNOTAVAIL'
          ? "no network interface has this address: use one of this machine's addresses, or :port for all"
          : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
            ? 'the host name does not resolve: use an IP address or a resolvable name'
            : `cannot listen there (${error instanceof Error ? error.message : String(error)})`;
  return `${flag} ${text}: ${what}`;
};

/** Binds `address` and releases it at once. Errors: why it cannot be bound (one line). */
export const probeListen = (flag: string, text: string, address: ListenAddress): Promise<E.Either<string, void>> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(E.left(listenFailure(flag, text, error))));
    server.listen({ port: address.port, host: address.host, exclusive: true }, () =>
      server.close(() => resolve(E.right(undefined))),
    );
  });
