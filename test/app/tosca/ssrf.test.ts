/**
 * Server-side request forgery: a tenant names the URL, so the operator refuses loopback, private,
 * link-local and metadata addresses after DNS resolution and at every redirect, pins the address
 * it checked for the connection, and says nothing in status that would tell refused from denied.
 * Only the loopback test server and a stub resolver are used: no real non-loopback address is
 * ever contacted (addresses outside loopback are checked with `allowedAddress`, which never connects).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedIpv4, isDeniedAddress, parseAllowlist } from '../../../app/tosca/address-policy.js';
import {
  allowedAddress,
  createFetcher,
  httpPolicy,
  Unreachable,
  type FetchError,
  type Resolver,
} from '../../../app/tosca/fetch.js';
import type { Logger } from '../../../app/logging/logger.js';
import { body, serve, type Loopback } from './loopback.js';

const UNREACHABLE =
  'cannot fetch: no answer, or not a host the operator may fetch from (the operator log has the details)';

let server: Loopback;
let port = 0;
beforeAll(async () => {
  server = await serve({
    '/ok.yaml': body('a: 1'),
    '/to-loopback': (_, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${port}/ok.yaml` }).end();
    },
    '/to-name': (_, response) => {
      response.writeHead(302, { location: `http://internal.test:${port}/ok.yaml` }).end();
    },
    '/to-mapped': (_, response) => {
      response.writeHead(302, { location: `http://[::ffff:127.0.0.1]:${port}/ok.yaml` }).end();
    },
  });
  port = Number(new URL(server.url('/')).port);
});
afterAll(async () => {
  await server.close();
});

/** A resolver answering from a table; names not in it have no address (as NXDOMAIN). */
const stubResolver =
  (table: Readonly<Record<string, ReadonlyArray<string>>>, calls: string[] = []): Resolver =>
  async (hostname) => {
    calls.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const NAMES = {
  'internal.test': ['127.0.0.1'],
  'ten.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'v6-loopback.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['127.0.0.1', '93.184.215.14'],
  'allowed.test': ['127.0.0.1'],
};

const recordingLogger = (): Logger & { readonly warnings: Array<Record<string, unknown>> } => {
  const warnings: Array<Record<string, unknown>> = [];
  return {
    debug: () => {},
    info: () => {},
    error: () => {},
    warn: (fields) => {
      warnings.push(fields as Record<string, unknown>);
    },
    warnings,
  };
};

const errorOf = (result: E.Either<FetchError, Uint8Array>): FetchError | undefined =>
  E.isLeft(result) ? result.left : undefined;
const textOf = (result: E.Either<FetchError, Uint8Array>): string | undefined =>
  E.isRight(result) ? new TextDecoder().decode(result.right) : undefined;
const hitsOf = (path: string): number => server.hits.get(path) ?? 0;

describe('the address policy', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '169.254.1.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::10.0.0.1',
    '2002:a00:1::1',
    'not-an-address',
  ])('denies %s', (address) => {
    expect(isDeniedAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(isDeniedAddress(address)).toBe(false);
    },
  );

  it('unwraps IPv4 addresses hidden in IPv6 forms', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('64:ff9b::a9fe:a9fe')).toBe('169.254.169.254');
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
  });

  it('parses an allowlist of names, addresses and networks, and names a bad entry', () => {
    const parsed = parseAllowlist(['templates.internal', '10.0.0.0/8', '::1']);
    if (!('allowlist' in parsed)) throw new Error(parsed.error);
    expect([parsed.allowlist.allowsHost('Templates.Internal.'), parsed.allowlist.allowsHost('other.internal')]).toEqual(
      [true, false],
    );
    expect(['10.9.9.9', '::ffff:10.9.9.9', '11.0.0.1', '::1', '::2'].map(parsed.allowlist.allowsAddress)).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(parseAllowlist(['10.0.0.0/33'])).toEqual({ error: '10.0.0.0/33: the prefix length must be 0 to 32' });
    expect(parseAllowlist(['http://x'])).toEqual({
      error: 'http://x: expected a host name, an IP address or a CIDR network such as 10.0.0.0/8',
    });
  });
});

describe('allowedAddress (never connects)', () => {
  const check = async (host: string, allowHosts: ReadonlyArray<string> = []): Promise<string> => {
    try {
      return (
        await allowedAddress(host, httpPolicy({ resolve: stubResolver(NAMES), allowHosts }), AbortSignal.timeout(1_000))
      ).address;
    } catch (error) {
      if (error instanceof Unreachable) return `refused: ${error.message}`;
      throw error;
    }
  };

  it.each([
    '10.1.2.3',
    '169.254.169.254',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:a9fe:a9fe]',
    '[fd00:ec2::254]',
    'ten.test',
    'metadata.test',
    'v6-loopback.test',
    'mapped.test',
    'mixed.test',
  ])('refuses %s', async (host) => {
    expect(await check(host)).toMatch(/^refused: .*loopback, private, link-local or metadata address/);
  });

  it('refuses a name without an address', async () => {
    expect(await check('nxdomain.test')).toBe('refused: nxdomain.test has no address');
  });

  it('allows what the admin allowlisted: a network, or a host name whatever it resolves to', async () => {
    expect(await check('ten.test', ['10.0.0.0/8'])).toBe('10.1.2.3');
    expect(await check('metadata.test', ['metadata.test'])).toBe('169.254.169.254');
    expect(await check('metadata.test', ['10.0.0.0/8'])).toMatch(/^refused/);
  });
});

describe('createFetcher against the policy', () => {
  it('is https only by default: a plain http URL is refused before any connection', async () => {
    const before = hitsOf('/ok.yaml');
    const result = errorOf(await createFetcher({ allowHosts: ['127.0.0.1'] })(server.url('/ok.yaml')));
    expect(result).toMatchObject({
      retryable: false,
      message: 'a plain http URL: use https (an admin may allow http with kreconcile run --tosca-allow-http)',
    });
    expect(hitsOf('/ok.yaml')).toBe(before);
  });

  it.each([
    ['the loopback address', () => server.url('/ok.yaml')],
    ['IPv6 loopback', () => `http://[::1]:${port}/ok.yaml`],
    ['loopback written as one number', () => `http://2130706433:${port}/ok.yaml`],
    ['loopback written in hex', () => `http://0x7f.1:${port}/ok.yaml`],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port}/ok.yaml`],
    ['a name resolving to loopback', () => `http://internal.test:${port}/ok.yaml`],
    ['a name resolving to IPv4-mapped loopback', () => `http://mapped.test:${port}/ok.yaml`],
    ['a name resolving to loopback and a public address', () => `http://mixed.test:${port}/ok.yaml`],
  ])('refuses %s without connecting; status reads as for any unreachable host, the log has why', async (_, url) => {
    const logger = recordingLogger();
    const before = hitsOf('/ok.yaml');
    expect(
      errorOf(await createFetcher({ allowHttp: true, resolve: stubResolver(NAMES), logger })(url())),
    ).toMatchObject({ message: UNREACHABLE, retryable: true });
    expect(hitsOf('/ok.yaml')).toBe(before);
    expect(String(logger.warnings[0]?.detail)).toContain('loopback, private, link-local or metadata address: refused');
  });

  it.each([
    ['a loopback address', '/to-loopback'],
    ['a name resolving to loopback', '/to-name'],
    ['an IPv4-mapped loopback address', '/to-mapped'],
  ])('checks every redirect: one to %s is refused', async (_, path) => {
    const logger = recordingLogger();
    const before = hitsOf('/ok.yaml');
    // The first hop is allowed by name; the redirect target is judged on its own.
    const fetcher = createFetcher({
      allowHttp: true,
      allowHosts: ['allowed.test'],
      resolve: stubResolver(NAMES),
      logger,
    });
    expect(errorOf(await fetcher(`http://allowed.test:${port}${path}`))?.message).toBe(UNREACHABLE);
    expect(hitsOf(path)).toBeGreaterThan(0);
    expect(hitsOf('/ok.yaml')).toBe(before);
    expect(String(logger.warnings[0]?.detail)).toContain('refused');
  });

  it('a refused connection reads exactly as a denied address in status (no port scanning through status)', async () => {
    const refused = errorOf(
      await createFetcher({ allowHttp: true, allowHosts: ['127.0.0.1'], timeoutMs: 2_000 })('http://127.0.0.1:1/x'),
    );
    const denied = errorOf(await createFetcher({ allowHttp: true })('http://127.0.0.1:1/x'));
    expect(refused).toEqual(denied);
  });

  it('the allowlisted loopback server works, by address, by network and by name', async () => {
    expect(textOf(await createFetcher({ allowHttp: true, allowHosts: ['127.0.0.1'] })(server.url('/ok.yaml')))).toBe(
      'a: 1',
    );
    expect(textOf(await createFetcher({ allowHttp: true, allowHosts: ['127.0.0.0/8'] })(server.url('/ok.yaml')))).toBe(
      'a: 1',
    );
    expect(
      textOf(
        await createFetcher({ allowHttp: true, allowHosts: ['allowed.test'], resolve: stubResolver(NAMES) })(
          `http://allowed.test:${port}/ok.yaml`,
        ),
      ),
    ).toBe('a: 1');
  });

  it('pins the checked address: the name is resolved once per hop, so a second answer cannot rebind it', async () => {
    const calls: string[] = [];
    let answers = 0;
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname);
      answers += 1;
      // First answer: the allowlisted address; any later one: a loopback address that is not allowed.
      return [{ address: answers === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    const fetcher = createFetcher({ allowHttp: true, allowHosts: ['127.0.0.1/32'], resolve: rebinding, cacheTtlMs: 0 });
    expect(textOf(await fetcher(`http://rebind.test:${port}/ok.yaml`))).toBe('a: 1');
    expect(calls).toEqual(['rebind.test']);
    expect(errorOf(await fetcher(`http://rebind.test:${port}/ok.yaml`))?.message).toBe(UNREACHABLE);
  });

  it('rejects an invalid allowlist entry as a defect (the CLI checks the flag first)', () => {
    expect(() => createFetcher({ allowHosts: ['10.0.0.0/99'] })).toThrow(
      'allowHosts: 10.0.0.0/99: the prefix length must be 0 to 32',
    );
  });
});
