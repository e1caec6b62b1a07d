/**
 * Fetching by URL: bounded in size, time and redirects, cached, `file:` only below allowed roots,
 * http(s) only from addresses the policy allows (checked after DNS, pinned, at every redirect).
 * Only the loopback server and a stub resolver are used: no real non-loopback address is contacted.
 */
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../../../app/tosca/fetch.js';
import { body, LOOPBACK_ALLOWED, redirect, serve, status, type Loopback } from './loopback.js';

let server: Loopback;
const UNREACHABLE =
  'cannot fetch: no answer, or not a host the operator may fetch from (the operator log has the details)';
const text = (result: E.Either<unknown, Uint8Array>): string | undefined =>
  E.isRight(result) ? new TextDecoder().decode(result.right) : undefined;
const errorOf = (result: E.Either<{ message: string; retryable: boolean }, Uint8Array>) =>
  E.isLeft(result) ? result.left : undefined;

beforeAll(async () => {
  server = await serve({
    '/ok.yaml': body('a: 1'),
    '/big': body('x'.repeat(5_000)),
    '/chunked': (_, response) => {
      response.writeHead(200);
      for (let i = 0; i < 10; i++) response.write('y'.repeat(1_000));
      response.end();
    },
    '/slow': () => {
      /* never answers */
    },
    '/moved': redirect('/ok.yaml'),
    '/loop': redirect('/loop'),
    '/to-file': redirect('file:///etc/passwd'),
    '/gone': status(404),
    '/broken': status(503),
  });
});
afterAll(async () => {
  await server.close();
});

describe('createFetcher over HTTP', () => {
  it('fetches a body', async () => {
    expect(text(await createFetcher(LOOPBACK_ALLOWED)(server.url('/ok.yaml')))).toBe('a: 1');
  });

  it('follows a redirect', async () => {
    expect(text(await createFetcher(LOOPBACK_ALLOWED)(server.url('/moved')))).toBe('a: 1');
  });

  it('stops after maxRedirects', async () => {
    expect(errorOf(await createFetcher({ ...LOOPBACK_ALLOWED, maxRedirects: 3 })(server.url('/loop')))).toMatchObject({
      message: 'more than 3 redirects',
      retryable: false,
    });
  });

  it('never follows a redirect to another scheme', async () => {
    expect(errorOf(await createFetcher(LOOPBACK_ALLOWED)(server.url('/to-file')))?.message).toBe(
      'redirected to a file: URL',
    );
  });

  it('refuses a body larger than maxBytes: declared, or streamed without a length', async () => {
    expect(errorOf(await createFetcher({ ...LOOPBACK_ALLOWED, maxBytes: 4_096 })(server.url('/big')))?.message).toBe(
      'larger than 4096 bytes (5000)',
    );
    expect(
      errorOf(await createFetcher({ ...LOOPBACK_ALLOWED, maxBytes: 4_096 })(server.url('/chunked')))?.message,
    ).toBe('larger than 4096 bytes');
  });

  it('gives up after timeoutMs (retryable)', async () => {
    expect(errorOf(await createFetcher({ ...LOOPBACK_ALLOWED, timeoutMs: 200 })(server.url('/slow')))).toMatchObject({
      message: UNREACHABLE,
      retryable: true,
    });
  });

  it('4xx is not retryable, 5xx is; an unreachable server is', async () => {
    expect(errorOf(await createFetcher(LOOPBACK_ALLOWED)(server.url('/gone')))).toMatchObject({
      message: 'HTTP 404',
      retryable: false,
    });
    expect(errorOf(await createFetcher(LOOPBACK_ALLOWED)(server.url('/broken')))).toMatchObject({
      message: 'HTTP 503',
      retryable: true,
    });
    expect(
      errorOf(await createFetcher({ ...LOOPBACK_ALLOWED, timeoutMs: 2_000 })('http://127.0.0.1:1/x')),
    ).toMatchObject({ message: UNREACHABLE, retryable: true });
  });

  it('caches for cacheTtlMs, shares concurrent requests, then fetches again', async () => {
    let now = 0;
    const fetcher = createFetcher({ ...LOOPBACK_ALLOWED, cacheTtlMs: 1_000, now: () => now });
    const before = server.hits.get('/ok.yaml') ?? 0;
    const [a, b] = await Promise.all([fetcher(server.url('/ok.yaml')), fetcher(server.url('/ok.yaml'))]);
    const c = await fetcher(server.url('/ok.yaml'));
    expect(server.hits.get('/ok.yaml')).toBe(before + 1);
    expect(E.isRight(a) && E.isRight(b) && E.isRight(c) && a.right === c.right).toBe(true);
    now = 1_000;
    await fetcher(server.url('/ok.yaml'));
    expect(server.hits.get('/ok.yaml')).toBe(before + 2);
  });

  it('does not cache failures', async () => {
    const fetcher = createFetcher(LOOPBACK_ALLOWED);
    const before = server.hits.get('/broken') ?? 0;
    await fetcher(server.url('/broken'));
    await fetcher(server.url('/broken'));
    expect(server.hits.get('/broken')).toBe(before + 2);
  });

  it('rejects other schemes and malformed URLs', async () => {
    expect(errorOf(await createFetcher(LOOPBACK_ALLOWED)('ftp://example.com/x'))?.message).toBe(
      'unsupported URL scheme ftp: use https (or file, where allowed)',
    );
    expect(errorOf(await createFetcher(LOOPBACK_ALLOWED)('not a url'))?.message).toBe('not a valid URL');
  });
});

describe('createFetcher over file:', () => {
  const root = mkdtempSync(join(tmpdir(), 'kreconcile-tosca-'));
  const allowed = join(root, 'templates');
  mkdirSync(allowed);
  writeFileSync(join(allowed, 'app.yaml'), 'a: 1');
  writeFileSync(join(root, 'secret.txt'), 'do not read');
  symlinkSync(join(root, 'secret.txt'), join(allowed, 'escape.yaml'));
  const url = (path: string) => pathToFileURL(path).href;

  it('is disabled without fileRoots', async () => {
    expect(errorOf(await createFetcher()(url(join(allowed, 'app.yaml'))))?.message).toContain(
      'file: URLs are disabled',
    );
  });

  it('reads below an allowed root', async () => {
    expect(text(await createFetcher({ fileRoots: [allowed] })(url(join(allowed, 'app.yaml'))))).toBe('a: 1');
  });

  it('refuses files outside the roots, symbolic links included', async () => {
    const fetcher = createFetcher({ fileRoots: [allowed] });
    expect(errorOf(await fetcher(url(join(root, 'secret.txt'))))?.message).toBe(
      'outside the directories allowed for file: URLs',
    );
    expect(errorOf(await fetcher(url(join(allowed, 'escape.yaml'))))?.message).toBe(
      'outside the directories allowed for file: URLs',
    );
    expect(errorOf(await fetcher(url(join(allowed, '..', 'secret.txt'))))?.message).toBe(
      'outside the directories allowed for file: URLs',
    );
  });

  it('a missing file is retryable (a volume may be mounted later); a directory is not a file', async () => {
    const fetcher = createFetcher({ fileRoots: [allowed] });
    expect(errorOf(await fetcher(url(join(allowed, 'missing.yaml'))))).toMatchObject({
      message: 'no such file',
      retryable: true,
    });
    mkdirSync(join(allowed, 'dir'));
    expect(errorOf(await fetcher(url(join(allowed, 'dir'))))?.message).toBe('not a regular file');
  });

  it('bounds the size', async () => {
    writeFileSync(join(allowed, 'big.yaml'), 'x'.repeat(5_000));
    expect(
      errorOf(await createFetcher({ fileRoots: [allowed], maxBytes: 100 })(url(join(allowed, 'big.yaml'))))?.message,
    ).toBe('larger than 100 bytes (5000)');
  });
});
