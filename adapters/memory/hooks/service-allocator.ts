/**
 * Cluster IPs from the service CIDR (default 10.96.0.0/12, kubeadm's: kube-apiserver's own
 * default of 10.0.0.0/24 holds only 253 Services, too few to check a large Application) and node
 * ports from 30000-32767, allocated lowest-free first so runs are reproducible. The first address
 * of the range is the `kubernetes` Service's, as kube-apiserver reserves it; network and broadcast
 * addresses are never given.
 */
import * as E from 'fp-ts/lib/Either.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';

export type ServiceAllocator = {
  allocateIp(requested?: string): E.Either<ClusterError, string>;
  releaseIp(ip: string): void;
  allocatePort(requested?: number): E.Either<ClusterError, number>;
  releasePort(port: number): void;
  /** Makes exactly these the allocated values (what stored Services hold); frees what failed writes took. */
  resync(ips: ReadonlyArray<string>, ports: ReadonlyArray<number>): void;
};

/** kubeadm's default `--service-cluster-ip-range`. */
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';

/** An IPv4 range as numbers: the addresses Services may get (the first one is the `kubernetes` Service's). */
type Ipv4Range = { readonly cidr: string; readonly firstHost: number; readonly lastHost: number };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** An IPv4 address as an unsigned 32-bit number, or undefined when it is not one. */
const ipv4ToNumber = (text: string): number | undefined => {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return undefined;
  return octets.reduce((sum, octet) => sum * 256 + octet, 0);
};

const numberToIpv4 = (n: number): string => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

/**
 * The range of a CIDR such as `10.96.0.0/12` (a prefix of 8 to 30 bits, as kube-apiserver needs a
 * few addresses at least), or why not: one line, for the option that set it.
 */
export const parseServiceCidr = (cidr: string): E.Either<string, Ipv4Range> => {
  const [address, bits, ...rest] = cidr.split('/');
  const base = ipv4ToNumber(address ?? '');
  const prefix = Number(bits);
  if (base === undefined || rest.length > 0 || !/^\d+$/.test(bits ?? '') || prefix < 8 || prefix > 30)
    return E.left(
      `service CIDR "${cidr}": expected an IPv4 network with a prefix of 8 to 30 bits, such as 10.96.0.0/12`,
    );
  const size = 2 ** (32 - prefix);
  const network = base - (base % size);
  // Network and broadcast addresses are never allocated; the first host is the `kubernetes` Service's.
  return E.right({ cidr: `${numberToIpv4(network)}/${prefix}`, firstHost: network + 2, lastHost: network + size - 2 });
};

const firstPort = 30000;
const lastPort = 32767;

const invalid = (field: string, message: string): ClusterError =>
  clusterError('Invalid', `Service is invalid: ${field}: ${message}`, {
    causes: [{ field, reason: 'FieldValueInvalid', message }],
  });

/** The lowest value of [first, last] not in `used`; `from` is where the search may start (all below are used). */
const lowestFree = (used: ReadonlySet<number>, from: number, last: number): number | undefined => {
  for (let n = from; n <= last; n++) if (!used.has(n)) return n;
  return undefined;
};

/** A lowest-free-first allocator over [first, last], with a hint that skips the used prefix (Sets stay small). */
type Pool = {
  readonly used: Set<number>;
  take(value: number): number;
  free(value: number): void;
  lowest(): number | undefined;
  reset(values: ReadonlyArray<number>): void;
};

const pool = (first: number, last: number): Pool => {
  const used = new Set<number>();
  let searchFrom = first;
  return {
    used,
    take: (value) => {
      used.add(value);
      return value;
    },
    free: (value) => {
      used.delete(value);
      searchFrom = Math.min(searchFrom, value);
    },
    lowest: () => {
      const found = lowestFree(used, Math.max(first, searchFrom), last);
      searchFrom = found ?? last + 1;
      return found;
    },
    reset: (values) => {
      used.clear();
      values.forEach((value) => used.add(value));
      searchFrom = first;
    },
  };
};

/** Cluster IPs from the Service CIDR: the lowest free one, or the one asked for if it is in range and free. */
const ipAllocator = (range: Ipv4Range): Pick<ServiceAllocator, 'allocateIp' | 'releaseIp'> & { readonly ips: Pool } => {
  const { firstHost, lastHost } = range;
  const ips = pool(firstHost, lastHost);
  return {
    ips,
    allocateIp: (requested) => {
      if (requested === undefined) {
        const free = ips.lowest();
        return free === undefined
          ? E.left(clusterError('Internal', 'failed to allocate a serviceIP: range is full'))
          : E.right(numberToIpv4(ips.take(free)));
      }
      const host = ipv4ToNumber(requested);
      if (host === undefined || host < firstHost || host > lastHost)
        return E.left(
          invalid(
            'spec.clusterIPs[0]',
            `Invalid value: "${requested}": provided IP is not in the valid range. The range of valid IPs is ${range.cidr}`,
          ),
        );
      if (ips.used.has(host))
        return E.left(invalid('spec.clusterIPs[0]', `Invalid value: "${requested}": provided IP is already allocated`));
      return E.right(numberToIpv4(ips.take(host)));
    },
    releaseIp: (ip) => {
      const host = ipv4ToNumber(ip);
      if (host !== undefined) ips.free(host);
    },
  };
};

/** Node ports from 30000-32767: the lowest free one, or the one asked for if it is in range and free. */
const portAllocator = (): Pick<ServiceAllocator, 'allocatePort' | 'releasePort'> & { readonly ports: Pool } => {
  const ports = pool(firstPort, lastPort);
  return {
    ports,
    allocatePort: (requested) => {
      if (requested === undefined) {
        const free = ports.lowest();
        return free === undefined
          ? E.left(clusterError('Internal', 'failed to allocate a nodePort: range is full'))
          : E.right(ports.take(free));
      }
      if (requested < firstPort || requested > lastPort)
        return E.left(
          invalid(
            'spec.ports[].nodePort',
            `Invalid value: ${requested}: provided port is not in the valid range. The range of valid ports is 30000-32767`,
          ),
        );
      if (ports.used.has(requested))
        return E.left(
          invalid('spec.ports[].nodePort', `Invalid value: ${requested}: provided port is already allocated`),
        );
      return E.right(ports.take(requested));
    },
    releasePort: (port) => ports.free(port),
  };
};

export const createServiceAllocator = (cidr: string = DEFAULT_SERVICE_CIDR): ServiceAllocator => {
  const range = parseServiceCidr(cidr);
  // The option is checked where the cluster is made (createMemoryCluster): a bad one never gets here.
  if (E.isLeft(range)) throw new Error(range.left);
  const { ips, ...ipParts } = ipAllocator(range.right);
  const { ports, ...portParts } = portAllocator();
  return {
    ...ipParts,
    ...portParts,
    resync: (heldIps, heldPorts) => {
      ips.reset(heldIps.flatMap((ip) => ipv4ToNumber(ip) ?? []));
      ports.reset(heldPorts);
    },
  };
};
