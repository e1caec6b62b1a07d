/**
 * Which network addresses the operator may fetch tenant-named URLs from: not loopback, private,
 * carrier-grade NAT, link-local, unique-local, multicast, unspecified, documentation or cloud
 * metadata addresses (nor IPv4 addresses hidden in IPv6 forms), unless an admin allowlisted them.
 * Any user who may create an Application chooses the URL: without this, `spec.csar` reads the
 * cluster's internal services and the cloud's instance metadata with the operator's network position.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

/** Subnets never fetched from (IPv4 forms embedded in IPv6 are unwrapped first, see `embeddedIpv4`). */
const DENIED_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (also cloud metadata such as 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, 169.254.169.254 metadata
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24], // IETF, benchmarking, documentation
  ['224.0.0.0', 4],
  ['240.0.0.0', 4], // multicast, reserved and broadcast
];

const DENIED_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local (fd00:ec2::254 metadata)
  ['fe80::', 10],
  ['fec0::', 10], // link-local, old site-local
  ['ff00::', 8], // multicast
];

const denied = (() => {
  const list = new BlockList();
  for (const [network, prefix] of DENIED_V4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of DENIED_V6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** The eight 16-bit groups of an IPv6 address (zone dropped), or undefined when it is not one. */
const hextets = (address: string): ReadonlyArray<number> | undefined => {
  const plain = address.split('%')[0] ?? '';
  if (isIP(plain) !== 6) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  const hex = dotted === null ? plain : plain.slice(0, -dotted[1]!.length) + ipv4Hextets(dotted[1]!);
  const [head = '', tail] = hex.split('::');
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
};

const ipv4Hextets = (ipv4: string): string => {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

const fromHextets = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 address an IPv6 address stands for, when it does: IPv4-mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d` (and the local-use `64:ff9b:1::/48`), 6to4 `2002:AABB:CCDD::`. Connecting to
 * these reaches (or is routed to) the IPv4 address, so they are judged as it.
 */
export const embeddedIpv4 = (address: string): string | undefined => {
  const groups = hextets(address);
  if (groups === undefined) return undefined;
  // hextets returns exactly eight groups or undefined.
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return fromHextets(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && (g2 === 1 || (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)))
    return fromHextets(g6, g7);
  if (g0 === 0x2002) return fromHextets(g1, g2);
  return undefined;
};

/** Whether `address` (IPv4 or IPv6 text) is one the operator must not connect to for a tenant. */
export const isDeniedAddress = (address: string): boolean => {
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return denied.check(inner, 'ipv4');
  const family = isIP(address.split('%')[0] ?? '');
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return denied.check(address.split('%')[0]!, family === 4 ? 'ipv4' : 'ipv6');
};

/** Hosts and networks an admin allows despite the rules above (`--tosca-allow-host`). */
export type AddressAllowlist = {
  /** Whether the URL's host name itself is allowed (then any address it resolves to is). */
  readonly allowsHost: (hostname: string) => boolean;
  /** Whether a resolved address lies in an allowed network. */
  readonly allowsAddress: (address: string) => boolean;
};

/**
 * An allowlist from `host` names, addresses and `address/prefix` networks.
 * Errors: an entry that is none of these (the message names it).
 */
export const parseAllowlist = (
  entries: ReadonlyArray<string>,
): { readonly allowlist: AddressAllowlist } | { readonly error: string } => {
  const networks = new BlockList();
  const hosts = new Set<string>();
  for (const entry of entries) {
    const text = entry
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    const [network = '', prefixText] = text.split('/');
    const family = isIP(network);
    if (family !== 0) {
      const max = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (
        !Number.isInteger(prefix) ||
        prefix < 0 ||
        prefix > max ||
        (prefixText !== undefined && !/^\d+$/.test(prefixText))
      )
        return { error: `${entry}: the prefix length must be 0 to ${max}` };
      networks.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
      continue;
    }
    if (prefixText !== undefined || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text))
      return { error: `${entry}: expected a host name, an IP address or a CIDR network such as 10.0.0.0/8` };
    hosts.add(text);
  }
  return {
    allowlist: {
      allowsHost: (hostname) =>
        hosts.has(
          hostname
            .toLowerCase()
            .replace(/^\[(.*)\]$/, '$1')
            .replace(/\.$/, ''),
        ),
      allowsAddress: (address) => {
        const plain = address.split('%')[0] ?? '';
        const inner = embeddedIpv4(plain);
        if (inner !== undefined && networks.check(inner, 'ipv4')) return true;
        const family = isIP(plain);
        return family !== 0 && networks.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
      },
    },
  };
};

/** Allows nothing beyond the rules (the default). */
export const emptyAllowlist: AddressAllowlist = { allowsHost: () => false, allowsAddress: () => false };
