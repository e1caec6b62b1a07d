/**
 * Service allocation: a cluster IP (unless headless or ExternalName) with single-stack IPv4
 * families, node ports for NodePort / LoadBalancer; on update allocated values carry forward
 * when the client leaves them unset and may not change, and fields the new type does not use
 * are dropped; released when no stored Service holds them any more.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import { isUnset, objectAt } from '../defaulting/index.js';
import type { HookContext, KindHooks } from './kind-hook-types.js';
import { unchangeable } from './immutable-fields.js';
import type { ServiceAllocator } from './service-allocator.js';

type Allocation = { readonly ips: ReadonlyArray<string>; readonly ports: ReadonlyArray<number> };

const needsNodePorts = (spec: JsonObject): boolean =>
  getOwn(spec, 'type') === 'NodePort' ||
  (getOwn(spec, 'type') === 'LoadBalancer' && getOwn(spec, 'allocateLoadBalancerNodePorts') !== false);

const portsOf = (spec: JsonObject): ReadonlyArray<JsonObject> => {
  const ports = getOwn(spec, 'ports');
  return isJsonArray(ports) ? ports.filter(isJsonObject) : [];
};

const requestedIp = (spec: JsonObject): string | undefined => {
  const ip = getOwn(spec, 'clusterIP');
  const ips = getOwn(spec, 'clusterIPs');
  const first = isJsonArray(ips) ? ips[0] : undefined;
  return typeof ip === 'string' && ip !== '' ? ip : typeof first === 'string' && first !== '' ? first : undefined;
};

const release = (allocator: ServiceAllocator, allocation: Allocation): void => {
  allocation.ips.forEach((ip) => allocator.releaseIp(ip));
  allocation.ports.forEach((port) => allocator.releasePort(port));
};

const allocateIp = (
  allocator: ServiceAllocator,
  spec: JsonObject,
): E.Either<ClusterError, { spec: JsonObject; ips: ReadonlyArray<string> }> => {
  if (getOwn(spec, 'type') === 'ExternalName') return E.right({ spec, ips: [] });
  const requested = requestedIp(spec);
  const families = {
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: isUnset(getOwn(spec, 'ipFamilyPolicy')) ? 'SingleStack' : (getOwn(spec, 'ipFamilyPolicy') ?? null),
  };
  if (requested === 'None')
    return E.right({ spec: { ...spec, clusterIP: 'None', clusterIPs: ['None'], ...families }, ips: [] });
  return pipe(
    allocator.allocateIp(requested),
    E.map((ip) => ({ spec: { ...spec, clusterIP: ip, clusterIPs: [ip], ...families }, ips: [ip] })),
  );
};

/** Node ports for ports without one (carrying the previous Service's port for the same port number). */
const allocatePorts = (
  allocator: ServiceAllocator,
  spec: JsonObject,
  previous: JsonObject | undefined,
): E.Either<ClusterError, { spec: JsonObject; ports: ReadonlyArray<number> }> => {
  if (!needsNodePorts(spec)) return E.right({ spec, ports: [] });
  const taken: number[] = [];
  const result: JsonValue[] = [];
  for (const port of portsOf(spec)) {
    const carried =
      previous === undefined ? undefined : portsOf(previous).find((p) => getOwn(p, 'port') === getOwn(port, 'port'));
    const wanted = getOwn(port, 'nodePort') ?? (carried === undefined ? undefined : getOwn(carried, 'nodePort'));
    if (typeof wanted === 'number' && carried !== undefined && getOwn(carried, 'nodePort') === wanted) {
      result.push({ ...port, nodePort: wanted });
      continue;
    }
    const allocated = allocator.allocatePort(typeof wanted === 'number' ? wanted : undefined);
    if (E.isLeft(allocated)) {
      taken.forEach((p) => allocator.releasePort(p));
      return allocated;
    }
    taken.push(allocated.right);
    result.push({ ...port, nodePort: allocated.right });
  }
  return E.right({ spec: { ...spec, ports: result }, ports: taken });
};

const allocate = (
  context: HookContext,
  spec: JsonObject,
  previous: JsonObject | undefined,
  withIp: boolean,
): E.Either<ClusterError, JsonObject> => {
  const { allocator } = context.state;
  const none: ReadonlyArray<string> = [];
  const ip = withIp ? allocateIp(allocator, spec) : E.right({ spec, ips: none });
  if (E.isLeft(ip)) return ip;
  const ports = allocatePorts(allocator, ip.right.spec, previous);
  if (E.isLeft(ports)) {
    release(allocator, { ips: ip.right.ips, ports: [] });
    return ports;
  }
  // A dry run answers as if allocated but keeps nothing.
  if (context.dryRun) release(allocator, { ips: ip.right.ips, ports: ports.right.ports });
  return E.right(ports.right.spec);
};

const immutableIp = (stored: JsonObject, next: Resource): ClusterError | undefined => {
  const before = getOwn(stored, 'clusterIP');
  const after = requestedIp(objectAt(next, 'spec'));
  return after === undefined || after === before || before === undefined
    ? undefined
    : unchangeable(next, 'spec.clusterIPs[0]', [after], 'may not change once set');
};

const ipFields = ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'];

/**
 * On update, allocated values the client left unset are taken from the stored Service (when its type still has them).
 */
const carryForward = (stored: JsonObject, next: JsonObject): JsonObject =>
  getOwn(next, 'type') === 'ExternalName'
    ? next
    : ipFields
        .filter((key) => isUnset(getOwn(next, key)) && getOwn(stored, key) !== undefined)
        .reduce<JsonObject>((spec, key) => ({ ...spec, [key]: getOwn(stored, key) ?? null }), next);

const without = (spec: JsonObject, keys: ReadonlyArray<string>): JsonObject =>
  Object.fromEntries(Object.entries(spec).filter(([key]) => !keys.includes(key)));

/** Fields the new type has no use for are dropped when they still hold the stored values (dropTypeDependentFields). */
const dropTypeDependent = (stored: JsonObject, next: JsonObject): JsonObject => {
  const type = getOwn(next, 'type');
  const unchangedIp = requestedIp(next) === undefined || requestedIp(next) === getOwn(stored, 'clusterIP');
  const noIp = type === 'ExternalName' && unchangedIp ? without(next, [...ipFields, 'internalTrafficPolicy']) : next;
  const nodePorts = needsNodePorts(noIp)
    ? noIp
    : {
        ...without(noIp, ['externalTrafficPolicy']),
        ...(isJsonArray(getOwn(noIp, 'ports'))
          ? { ports: portsOf(noIp).map((port) => without(port, ['nodePort'])) }
          : {}),
      };
  return type === 'LoadBalancer'
    ? nodePorts
    : without(nodePorts, ['allocateLoadBalancerNodePorts', 'loadBalancerClass']);
};

/**
 * After every stored change, the allocator holds exactly what stored Services hold (type changes free, failed writes
 * too).
 */
const resync = (context: HookContext): void => {
  const held = [...context.state.objects.values()]
    .filter((object) => object.apiVersion === 'v1' && object.kind === 'Service')
    .map((service) => allocatedOf(objectAt(service, 'spec')));
  context.state.allocator.resync(
    held.flatMap((a) => a.ips),
    held.flatMap((a) => a.ports),
  );
};

const allocatedOf = (spec: JsonObject): Allocation => {
  const ip = getOwn(spec, 'clusterIP');
  return {
    ips: typeof ip === 'string' && ip !== 'None' && ip !== '' ? [ip] : [],
    ports: portsOf(spec).flatMap((port) => {
      const nodePort = getOwn(port, 'nodePort');
      return typeof nodePort === 'number' ? [nodePort] : [];
    }),
  };
};

export const serviceHooks: KindHooks = {
  prepareCreate: (object, context) =>
    pipe(
      allocate(context, objectAt(object, 'spec'), undefined, true),
      E.map((spec) => ({ ...object, spec })),
    ),
  prepareUpdate: (stored, next, context) => {
    const storedSpec = objectAt(stored, 'spec');
    const immutable = immutableIp(storedSpec, next);
    if (immutable !== undefined) return E.left(immutable);
    const carried = carryForward(storedSpec, dropTypeDependent(storedSpec, objectAt(next, 'spec')));
    return pipe(
      allocate(
        context,
        carried,
        storedSpec,
        requestedIp(carried) === undefined && getOwn(carried, 'type') !== 'ExternalName',
      ),
      E.map((spec) => ({ ...next, spec })),
    );
  },
  committed: (_object, context) => resync(context),
  removed: (_object, context) => resync(context),
};
