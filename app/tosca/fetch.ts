/**
 * Fetching TOSCA templates and CSAR archives by URL (`https`, `http` when allowed, `file`):
 * bounded in size, time and redirects, only from addresses the address policy allows (checked
 * after DNS resolution and pinned for the connection, at every redirect), cached for a while,
 * concurrent requests for one URL shared.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { realpath, stat, readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { emptyAllowlist, isDeniedAddress, parseAllowlist, type AddressAllowlist } from './address-policy.js';

export type FetchLimits = {
  /** Largest body accepted, in bytes (default 4 MiB). */
  readonly maxBytes: number;
  /** Time for the whole fetch, redirects included (default 10 s). */
  readonly timeoutMs: number;
  /** Redirects followed (default 5). */
  readonly maxRedirects: number;
  /** How long a fetched body is reused (default 60 s; 0 disables the cache). */
  readonly cacheTtlMs: number;
  /** Bodies kept at most (default 64). */
  readonly cacheEntries: number;
  /**
   * Directories `file:` URLs may read below (default none: `file:` is refused). Any user who may
   * create an Application chooses the URL, so the operator must not read just any local file.
   */
  readonly fileRoots: ReadonlyArray<string>;
  /** Whether plain `http:` URLs are fetched (default false: https only). */
  readonly allowHttp: boolean;
  /**
   * Host names, addresses and CIDR networks fetched from although the address policy denies them
   * (loopback, private, link-local, metadata): an admin's choice (`--tosca-allow-host`), default none.
   */
  readonly allowHosts: ReadonlyArray<string>;
};

export const defaultFetchLimits: FetchLimits = {
  maxBytes: 4 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 5,
  cacheTtlMs: 60_000,
  cacheEntries: 64,
  fileRoots: [],
  allowHttp: false,
  allowHosts: [],
};

/** An address a host name resolves to. */
export type ResolvedAddress = { readonly address: string; readonly family: 4 | 6 };

/** Every address of a host name (the system resolver by default; tests give a stub). */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>;

const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/** A fetch that failed; `retryable` when trying again later may work (network, 5xx, timeout). */
export type FetchError = { readonly url: string; readonly message: string; readonly retryable: boolean };

export type Fetcher = (url: string) => Promise<E.Either<FetchError, Uint8Array>>;

export type FetcherOptions = Partial<FetchLimits> & {
  /** Milliseconds since the epoch, for cache expiry (default Date.now). */
  readonly now?: () => number;
  /** Resolves host names (default: the system resolver, as `getaddrinfo`). */
  readonly resolve?: Resolver;
  /** Where the details of a failed fetch go (status only says it failed: no port scanning through it). */
  readonly logger?: Logger;
};

/** A fetcher with its own cache (errors as for `httpPolicy`). */
export const createFetcher = (options: FetcherOptions = {}): Fetcher => {
  const limits: FetchLimits = { ...defaultFetchLimits, ...options };
  const policy = httpPolicy(options);
  const now = options.now ?? Date.now;
  const cache = new Map<string, { readonly at: number; readonly body: Uint8Array }>();
  const inFlight = new Map<string, Promise<E.Either<FetchError, Uint8Array>>>();
  return async (url) => {
    const cached = cache.get(url);
    if (cached !== undefined && now() - cached.at < limits.cacheTtlMs) return E.right(cached.body);
    const pending = inFlight.get(url);
    if (pending !== undefined) return pending;
    const started = fetchOnce(url, limits, policy).then((result) => {
      inFlight.delete(url);
      if (E.isRight(result) && limits.cacheTtlMs > 0)
        remember(cache, url, { at: now(), body: result.right }, limits.cacheEntries);
      return result;
    });
    inFlight.set(url, started);
    return started;
  };
};

const remember = <V>(cache: Map<string, V>, key: string, value: V, entries: number): void => {
  cache.delete(key);
  cache.set(key, value);
  for (
    let oldest = cache.keys().next();
    cache.size > Math.max(1, entries) && oldest.done !== true;
    oldest = cache.keys().next()
  )
    cache.delete(oldest.value);
};

const failure = (url: string, message: string, retryable: boolean): E.Either<FetchError, Uint8Array> =>
  E.left({ url, message, retryable });

const fetchOnce = (url: string, limits: FetchLimits, policy: HttpPolicy): Promise<E.Either<FetchError, Uint8Array>> => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.resolve(failure(url, 'not a valid URL', false));
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return fetchHttp(parsed, limits, policy);
  if (parsed.protocol === 'file:') return readLocal(parsed, limits);
  return Promise.resolve(
    failure(
      url,
      `unsupported URL scheme ${parsed.protocol.replace(/:$/, '')}: use https (or file, where allowed)`,
      false,
    ),
  );
};

/** What one HTTP exchange gave: a redirect to follow, a status to report, or the body. */
type Hop =
  | { readonly _tag: 'Redirect'; readonly location: string }
  | { readonly _tag: 'Status'; readonly status: number }
  | { readonly _tag: 'Body'; readonly body: Uint8Array }
  | { readonly _tag: 'TooLarge'; readonly declared?: number };

/**
 * A failure the tenant must not learn the details of: refused connections, timeouts, DNS failures
 * and denied addresses all read the same in status, or `status` becomes a port scanner.
 */
export class Unreachable extends Error {}

const UNREACHABLE =
  'cannot fetch: no answer, or not a host the operator may fetch from (the operator log has the details)';

/**
 * HTTP(S) with manual redirects (counted, never to another scheme), every hop's host resolved,
 * checked against the address policy and pinned for its connection, and a streamed size bound.
 */
const fetchHttp = async (
  start: URL,
  limits: FetchLimits,
  policy: HttpPolicy,
): Promise<E.Either<FetchError, Uint8Array>> => {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = start;
  try {
    for (let redirects = 0; ; redirects++) {
      const scheme = schemeProblem(current, limits);
      if (scheme !== undefined)
        return failure(start.href, current === start ? scheme : `redirected to ${scheme}`, false);
      const hop = await exchange(current, limits.maxBytes, policy, signal);
      if (hop._tag === 'Redirect') {
        if (redirects >= limits.maxRedirects)
          return failure(start.href, `more than ${limits.maxRedirects} redirects`, false);
        const next = new URL(hop.location, current);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          return failure(start.href, `redirected to a ${next.protocol} URL`, false);
        current = next;
        continue;
      }
      if (hop._tag === 'Status') {
        const retryable = hop.status >= 500 || hop.status === 408 || hop.status === 429;
        return failure(
          start.href,
          `HTTP ${hop.status}${current.href === start.href ? '' : ` from ${current.href}`}`,
          retryable,
        );
      }
      if (hop._tag === 'TooLarge')
        return failure(
          start.href,
          `larger than ${limits.maxBytes} bytes${hop.declared === undefined ? '' : ` (${hop.declared})`}`,
          false,
        );
      return E.right(hop.body);
    }
  } catch (error) {
    const detail = signal.aborted
      ? `no complete answer within ${limits.timeoutMs} ms`
      : error instanceof Unreachable
        ? error.message
        : causeOf(error);
    policy.logger.warn({ url: redacted(start), at: redacted(current), detail }, 'TOSCA/CSAR fetch failed');
    return failure(start.href, UNREACHABLE, true);
  }
};

/** Why a URL's scheme is refused (plain http needs `allowHttp`: anyone on the path could change the template). */
const schemeProblem = (url: URL, limits: FetchLimits): string | undefined => {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && limits.allowHttp)) return undefined;
  if (url.protocol === 'http:')
    return 'a plain http URL: use https (an admin may allow http with kreconcile run --tosca-allow-http)';
  return `a ${url.protocol} URL`;
};

/** The URL without credentials or query (logs must not carry tokens a tenant put in the URL). */
const redacted = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`;

/** The `code` of a Node system error (`ECONNREFUSED`, `ENOENT`, …), undefined for anything else. */
const errnoCode = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

const causeOf = (error: unknown): string => {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? (errnoCode(cause) ?? cause.message) : String(cause);
};

/** Address resolution, the allowlist and where details are logged. */
export type HttpPolicy = { readonly resolve: Resolver; readonly allowlist: AddressAllowlist; readonly logger: Logger };

/**
 * The policy of `createFetcher(options)`.
 * Errors: throws (a defect) for an invalid `allowHosts` entry: check them with `parseAllowlist` first.
 */
export const httpPolicy = (options: FetcherOptions): HttpPolicy => {
  const parsed =
    options.allowHosts === undefined || options.allowHosts.length === 0
      ? { allowlist: emptyAllowlist }
      : parseAllowlist(options.allowHosts);
  if ('error' in parsed) throw new Error(`allowHosts: ${parsed.error}`);
  return {
    resolve: options.resolve ?? systemResolver,
    allowlist: parsed.allowlist,
    logger: options.logger ?? silentLogger,
  };
};

/**
 * The address to connect to for `hostname` (a name, or an address as in a URL, `[::1]`): every resolved address must be
 * allowed (a name that
 * resolves to one public and one private address is refused: the client could pick either).
 * Errors (thrown `Unreachable`): no address, a denied address.
 */
export const allowedAddress = async (
  hostname: string,
  policy: HttpPolicy,
  signal: AbortSignal,
): Promise<ResolvedAddress> => {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const addresses: ReadonlyArray<ResolvedAddress> =
    literal === 4 || literal === 6
      ? [{ address: host, family: literal }]
      : await abortable(policy.resolve(host), signal);
  const [first] = addresses;
  if (first === undefined) throw new Unreachable(`${host} has no address`);
  if (policy.allowlist.allowsHost(host)) return first;
  const refused = addresses.find(({ address }) => isDeniedAddress(address) && !policy.allowlist.allowsAddress(address));
  if (refused !== undefined) {
    throw new Unreachable(
      `${host}${literal === 0 ? ` resolves to ${refused.address}, which` : ''} is a loopback, private, link-local or metadata address: refused (allow it with --tosca-allow-host)`,
    );
  }
  return first;
};

/**
 * Why `signal` aborted, as an Error (`abort(reason)` may be given any value; the default is a DOMException, an Error).
 */
const abortReason = (signal: AbortSignal): Error => {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
};

const abortable = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });

/**
 * One request to `url`, connected to the address `allowedAddress` checked (a custom `lookup`, so
 * a second DNS answer cannot swap it: no rebinding between check and connect). No connection reuse.
 */
const exchange = async (url: URL, maxBytes: number, policy: HttpPolicy, signal: AbortSignal): Promise<Hop> => {
  const target = await allowedAddress(url.hostname, policy, signal);
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true)
      // With `all: true` Node's lookup callback takes the address list (LookupFunction types only the single-address
      // form).
      (callback as unknown as (error: null, addresses: ReadonlyArray<ResolvedAddress>) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(
      url,
      { lookup, agent: false, signal, headers: { accept: 'application/yaml, application/zip, */*' } },
      resolve,
    );
    request.once('error', reject);
    request.end();
  });
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400 && response.headers.location !== undefined) {
    response.destroy();
    return { _tag: 'Redirect', location: response.headers.location };
  }
  if (status < 200 || status >= 300) {
    response.destroy();
    return { _tag: 'Status', status };
  }
  return boundedBody(response, maxBytes);
};

const boundedBody = async (response: IncomingMessage, maxBytes: number): Promise<Hop> => {
  const declared = Number(response.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return { _tag: 'TooLarge', declared };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    // An http.IncomingMessage without setEncoding yields Buffers (its iterator is typed any).
    const bytes = chunk as Buffer;
    size += bytes.byteLength;
    if (size > maxBytes) {
      response.destroy();
      return { _tag: 'TooLarge' };
    }
    chunks.push(bytes);
  }
  return { _tag: 'Body', body: Buffer.concat(chunks, size) };
};

/** `file:` below one of the configured roots (symbolic links resolved first, so they cannot escape). */
const readLocal = async (url: URL, limits: FetchLimits): Promise<E.Either<FetchError, Uint8Array>> => {
  if (limits.fileRoots.length === 0)
    return failure(
      url.href,
      'file: URLs are disabled (start the operator with --tosca-file-root DIR to allow a directory)',
      false,
    );
  try {
    const path = await realpath(fileURLToPath(url));
    const roots = await Promise.all(
      limits.fileRoots.map(async (root) => realpath(resolvePath(root)).catch(() => resolvePath(root))),
    );
    if (!roots.some((root) => isBelow(path, root)))
      return failure(url.href, 'outside the directories allowed for file: URLs', false);
    const info = await stat(path);
    if (!info.isFile()) return failure(url.href, 'not a regular file', false);
    if (info.size > limits.maxBytes)
      return failure(url.href, `larger than ${limits.maxBytes} bytes (${info.size})`, false);
    return E.right(await readFile(path));
  } catch (error) {
    const code = errnoCode(error);
    // A missing file may appear later (a ConfigMap volume being mounted): worth retrying.
    return failure(
      url.href,
      code === 'ENOENT' ? 'no such file' : `cannot read: ${code ?? String(error)}`,
      code === 'ENOENT',
    );
  }
};

const isBelow = (path: string, root: string): boolean => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};
