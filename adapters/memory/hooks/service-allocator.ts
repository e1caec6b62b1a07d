/**
 * Cluster IPs from 10.0.0.0/24 (10.0.0.1 is the `kubernetes` Service's) and node ports from
 * 30000-32767, allocated lowest-free first so runs are reproducible.
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

const ipPrefix = '10.0.0.';
const firstHost = 2;
const lastHost = 254;
const firstPort = 30000;
const lastPort = 32767;

const invalid = (field: string, message: string): ClusterError =>
  clusterError('Invalid', `Service is invalid: ${field}: ${message}`, {
    causes: [{ field, reason: 'FieldValueInvalid', message }],
  });

const lowestFree = (used: ReadonlySet<number>, first: number, last: number): number | undefined => {
  for (let n = first; n <= last; n++) if (!used.has(n)) return n;
  return undefined;
};

export const createServiceAllocator = (): ServiceAllocator => {
  const ips = new Set<number>();
  const ports = new Set<number>();
  const take = (set: Set<number>, value: number): number => {
    set.add(value);
    return value;
  };
  return {
    allocateIp: (requested) => {
      if (requested === undefined) {
        const free = lowestFree(ips, firstHost, lastHost);
        return free === undefined
          ? E.left(clusterError('Internal', 'failed to allocate a serviceIP: range is full'))
          : E.right(`${ipPrefix}${take(ips, free)}`);
      }
      const host = requested.startsWith(ipPrefix) ? Number(requested.slice(ipPrefix.length)) : NaN;
      if (!Number.isInteger(host) || host < firstHost || host > lastHost)
        return E.left(
          invalid(
            'spec.clusterIPs[0]',
            `Invalid value: "${requested}": provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/24`,
          ),
        );
      if (ips.has(host))
        return E.left(invalid('spec.clusterIPs[0]', `Invalid value: "${requested}": provided IP is already allocated`));
      return E.right(`${ipPrefix}${take(ips, host)}`);
    },
    releaseIp: (ip) => {
      ips.delete(Number(ip.slice(ipPrefix.length)));
    },
    allocatePort: (requested) => {
      if (requested === undefined) {
        const free = lowestFree(ports, firstPort, lastPort);
        return free === undefined
          ? E.left(clusterError('Internal', 'failed to allocate a nodePort: range is full'))
          : E.right(take(ports, free));
      }
      if (requested < firstPort || requested > lastPort)
        return E.left(
          invalid(
            'spec.ports[].nodePort',
            `Invalid value: ${requested}: provided port is not in the valid range. The range of valid ports is 30000-32767`,
          ),
        );
      if (ports.has(requested))
        return E.left(
          invalid('spec.ports[].nodePort', `Invalid value: ${requested}: provided port is already allocated`),
        );
      return E.right(take(ports, requested));
    },
    releasePort: (port) => {
      ports.delete(port);
    },
    resync: (heldIps, heldPorts) => {
      ips.clear();
      heldIps.forEach((ip) => ips.add(Number(ip.slice(ipPrefix.length))));
      ports.clear();
      heldPorts.forEach((port) => ports.add(port));
    },
  };
};
