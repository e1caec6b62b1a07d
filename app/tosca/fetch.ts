/**
 * Fetching TOSCA templates and CSAR archives by URL (`http`, `https`, `file`): bounded in size,
 * time and redirects, cached for a while, concurrent requests for one URL shared.
 */
import { realpath, stat, readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';

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
};

export const defaultFetchLimits: FetchLimits = { maxBytes: 4 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 5, cacheTtlMs: 60_000, cacheEntries: 64, fileRoots: [] };

/** A fetch that failed; `retryable` when trying again later may work (network, 5xx, timeout). */
export type FetchError = { readonly url: string; readonly message: string; readonly retryable: boolean };

export type Fetcher = (url: string) => Promise<E.Either<FetchError, Uint8Array>>;

export type FetcherOptions = Partial<FetchLimits> & {
  /** Milliseconds since the epoch, for cache expiry (default Date.now). */
  readonly now?: () => number;
};

/** A fetcher with its own cache. */
export const createFetcher = (options: FetcherOptions = {}): Fetcher => {
  const limits: FetchLimits = { ...defaultFetchLimits, ...options };
  const now = options.now ?? Date.now;
  const cache = new Map<string, { readonly at: number; readonly body: Uint8Array }>();
  const inFlight = new Map<string, Promise<E.Either<FetchError, Uint8Array>>>();
  return async (url) => {
    const cached = cache.get(url);
    if (cached !== undefined && now() - cached.at < limits.cacheTtlMs) return E.right(cached.body);
    const pending = inFlight.get(url);
    if (pending !== undefined) return pending;
    const started = fetchOnce(url, limits).then((result) => {
      inFlight.delete(url);
      if (E.isRight(result) && limits.cacheTtlMs > 0) remember(cache, url, { at: now(), body: result.right }, limits.cacheEntries);
      return result;
    });
    inFlight.set(url, started);
    return started;
  };
};

const remember = <V>(cache: Map<string, V>, key: string, value: V, entries: number): void => {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > Math.max(1, entries)) cache.delete(cache.keys().next().value as string);
};

const failure = (url: string, message: string, retryable: boolean): E.Either<FetchError, Uint8Array> => E.left({ url, message, retryable });

const fetchOnce = (url: string, limits: FetchLimits): Promise<E.Either<FetchError, Uint8Array>> => {
  let parsed: URL;
  try { parsed = new URL(url); } catch { return Promise.resolve(failure(url, 'not a valid URL', false)); }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return fetchHttp(parsed, limits);
  if (parsed.protocol === 'file:') return readLocal(parsed, limits);
  return Promise.resolve(failure(url, `unsupported URL scheme ${parsed.protocol.replace(/:$/, '')}: use http, https or file`, false));
};

/** HTTP(S) with manual redirects (counted, and never to another scheme) and a streamed size bound. */
const fetchHttp = async (start: URL, limits: FetchLimits): Promise<E.Either<FetchError, Uint8Array>> => {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let current = start;
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(current, { redirect: 'manual', signal, headers: { accept: 'application/yaml, application/zip, */*' } });
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        await response.body?.cancel();
        if (redirects >= limits.maxRedirects) return failure(start.href, `more than ${limits.maxRedirects} redirects`, false);
        const next = new URL(response.headers.get('location') as string, current);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') return failure(start.href, `redirected to a ${next.protocol} URL`, false);
        current = next;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
        return failure(start.href, `HTTP ${response.status}${current.href === start.href ? '' : ` from ${current.href}`}`, retryable);
      }
      return await boundedBody(response, start.href, limits.maxBytes);
    }
  } catch (error) {
    const timedOut = signal.aborted;
    return failure(start.href, timedOut ? `no complete answer within ${limits.timeoutMs} ms` : `cannot fetch: ${causeOf(error)}`, true);
  }
};

const causeOf = (error: unknown): string => {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? (cause as NodeJS.ErrnoException).code ?? cause.message : String(cause);
};

const boundedBody = async (response: Response, url: string, maxBytes: number): Promise<E.Either<FetchError, Uint8Array>> => {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return failure(url, `larger than ${maxBytes} bytes (${declared})`, false);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const chunk = reader === undefined ? { done: true as const, value: undefined } : await reader.read();
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      return failure(url, `larger than ${maxBytes} bytes`, false);
    }
    chunks.push(chunk.value);
  }
  return E.right(Buffer.concat(chunks, size));
};

/** `file:` below one of the configured roots (symbolic links resolved first, so they cannot escape). */
const readLocal = async (url: URL, limits: FetchLimits): Promise<E.Either<FetchError, Uint8Array>> => {
  if (limits.fileRoots.length === 0) return failure(url.href, 'file: URLs are disabled (start the operator with --tosca-file-root DIR to allow a directory)', false);
  try {
    const path = await realpath(fileURLToPath(url));
    const roots = await Promise.all(limits.fileRoots.map(async (root) => realpath(resolvePath(root)).catch(() => resolvePath(root))));
    if (!roots.some((root) => isBelow(path, root))) return failure(url.href, 'outside the directories allowed for file: URLs', false);
    const info = await stat(path);
    if (!info.isFile()) return failure(url.href, 'not a regular file', false);
    if (info.size > limits.maxBytes) return failure(url.href, `larger than ${limits.maxBytes} bytes (${info.size})`, false);
    return E.right(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing file may appear later (a ConfigMap volume being mounted): worth retrying.
    return failure(url.href, code === 'ENOENT' ? 'no such file' : `cannot read: ${code ?? String(error)}`, code === 'ENOENT');
  }
};

const isBelow = (path: string, root: string): boolean => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};
