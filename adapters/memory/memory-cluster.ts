/**
 * The in-memory Kubernetes API server behind the `Cluster` port: API-server semantics (see the
 * verb modules), seeded fault injection, and the test controls a real cluster cannot offer
 * (outages, restarts, a snapshot of everything stored).
 */
import { crdRules } from '../cel/crd-rules.js';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { Resource } from '../../core/model/resource.js';
import type { ObjectRef } from '../../core/model/resource.js';
import { builtinScopes, clusterScopedWriteProblem, type Scope, type ScopeTable } from '../../core/model/scope.js';
import type { Cluster, Clock, Patch, WriteOptions } from '../../core/ports/cluster.js';
import { clusterError, type ClusterError } from '../../core/ports/errors.js';
import { createControllerScheduler } from './controllers/background-controllers.js';
import { builtinKinds } from './kinds/builtin-kinds.js';
import { commitPut } from './verbs/commit.js';
import { createObject } from './verbs/create-verb.js';
import { strictFields } from './verbs/strict-fields.js';
import { deleteObject } from './verbs/delete-verb.js';
import { createEventHistory } from './watch/event-history.js';
import { createApiGate, type ApiGate } from './faults/api-gate.js';
import { decideEvent, decideWatchTimeout } from './faults/fault-injector.js';
import type { FaultProfile } from './faults/faults.js';
import { deepCopy } from './json/json-copy.js';
import { groupKindKey, type KindInfo } from './kinds/kind-info.js';
import { createKindRegistry } from './kinds/kind-registry.js';
import { flushMicrotasks } from './clock/manual-clock.js';
import { patchObject } from './verbs/patch-verb.js';
import type { Ownership } from './verbs/ownership.js';
import { between, mulberry32, type Random } from './faults/prng.js';
import { getObject, listObjects } from './verbs/read-verbs.js';
import { storedObject, type ServerState } from './server-state.js';
import { createServiceAllocator } from './hooks/service-allocator.js';
import type { MutatingAdmission } from './admission/index.js';
import { systemClock } from './clock/system-clock.js';
import { updateObject } from './verbs/update-verb.js';
import { createWatchHub, type WatchHub } from './watch/watch-hub.js';
import { startWatch } from './verbs/watch-verb.js';
import { DEFAULT_MAX_OBJECT_BYTES, DEFAULT_MAX_REQUEST_BODY_BYTES, withinRequestLimit } from './verbs/index.js';
import { defined } from '../../core/json/defined.js';

export type MemoryClusterOptions = {
  readonly clock?: Clock;
  /** Seeds fault injection and generated values (UIDs, names): same seed, same run. */
  readonly seed?: number;
  /** Kinds served from the start (default: the built-in table). */
  readonly scopes?: ScopeTable;
  /** Server-side defaulting of built-in kinds and CRD schema defaults (default true). */
  readonly defaulting?: boolean;
  readonly faults?: FaultProfile;
  /** Mutating admission on create and update, per kind (a model of admission policies and webhooks; default none). */
  readonly admission?: ReadonlyArray<MutatingAdmission>;
  /** Changes kept for watches to resume from; older resourceVersions get 410 Gone (default 1000). */
  readonly watchHistory?: number;
  /** Whether ownerReference garbage collection, the namespace and storage protection controllers run (default true). */
  readonly gc?: boolean;
  /**
   * Simulate workload controllers: rollouts complete at once, Jobs complete, PVCs bind (default false, like a bare API
   * server).
   */
  readonly workloads?: boolean;
  /**
   * With `workloads`, also run Pods: Deployments get a ReplicaSet, and ReplicaSets, StatefulSets,
   * DaemonSets and Jobs get Pods that go Running and Ready (fault `pods.failRate`). Default: on
   * whenever `workloads` is, as kube-controller-manager and the kubelets make them; `false` keeps
   * the workloads' settled status without any Pod or ReplicaSet (an object count stays the applied one).
   */
  readonly pods?: boolean;
  /**
   * kube-apiserver's `--min-request-timeout` (default 1800 s): a watch served over HTTP whose
   * client sent no `timeoutSeconds` is ended cleanly by the server after a seeded random time in
   * [this, 2·this] (30–60 min by default) on the cluster's clock, as the real server does; the
   * client re-watches. The watch fault `serverTimeoutMs` overrides it for every watch.
   */
  readonly minRequestTimeoutMs?: number;
  /** Clock time between watch bookmarks (default 60 s). */
  readonly bookmarkIntervalMs?: number;
  /** The Service cluster IP range, `--service-cluster-ip-range` (default 10.96.0.0/12, kubeadm's). */
  readonly serviceClusterIpRange?: string;
  /**
   * etcd's `--max-request-bytes`: a larger object is refused with `etcdserver: request is too large` (default 1.5 MiB).
   */
  readonly maxObjectBytes?: number;
  /** kube-apiserver's request body limit: a larger body is answered 413 (default 3 MiB). */
  readonly maxRequestBodyBytes?: number;
};

export type KindRegistration = {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: Scope;
  /** Default true. */
  readonly statusSubresource?: boolean;
};

/** One kind as discovery describes it; `versions: 'any'` for kinds served at whatever version is asked. */
export type ServedKind = Pick<
  KindInfo,
  'group' | 'kind' | 'plural' | 'scope' | 'versions' | 'statusSubresource' | 'custom'
>;

export interface MemoryCluster extends Cluster {
  /** The fault profile in force (assignable). */
  faults: FaultProfile;
  setFaults(profile: FaultProfile): void;
  /**
   * An API-server restart: the watch cache starts over, so every open watch ends with 410 Gone
   * (what a client that resumes dropped streams sees) and older resourceVersions are Gone; over
   * HTTP the watch connections are cut instead, and the resume gets the 410;
   * with `downtimeMs`, calls answer Unavailable meanwhile.
   */
  restart(options?: { readonly downtimeMs?: number }): void;
  /**
   * etcd compaction overtakes every watcher while the server stays up: each open watch delivers
   * what it has, then ends with 410 Gone, and resuming from any version so far is Gone: clients
   * must relist. (The watch fault `expireRate` does the same for one stream at a random event.)
   */
  expireWatches(): void;
  /**
   * Every call answers Unavailable until the clock has moved `ms` on. Watch streams are not
   * closed (clients reconnect and resume); one opened meanwhile starts when the server is back.
   */
  unavailableFor(ms: number): void;
  /** A snapshot (deep copies) of everything stored, in storage order. */
  objects(): ReadonlyArray<Resource>;
  /** Serves a kind without a CRD (custom-resource strategy). */
  registerKind(registration: KindRegistration): void;
  /** The kinds served right now (built-ins, CRDs once established, registered kinds): what discovery answers. */
  servedKinds(): ReadonlyArray<ServedKind>;
  /**
   * The faults injected so far, by name (`Conflict on patch`, `latency on get`, `watch event duplicated`) with their
   * count.
   */
  injectedFaults(): ReadonlyMap<string, number>;
  /** Resolves once background work (garbage collection, cleanup) triggered so far is done. */
  settle(): Promise<void>;
  /**
   * The same server seen by one named client whose calls draw their faults from a stream of
   * their own (seeded from the cluster's seed and `client`): the calls of one client then meet
   * the same faults on replay whatever other clients (a test's setup, checks, perturbations) send.
   * With `keyedFaults`, each call draws from a stream of its own instead, seeded from the client,
   * the call (verb, kind, namespace and name) and how many such calls the client made before it:
   * concurrent calls meet the same faults whatever order they arrive in (a client that runs in
   * real time, whose interleaving nobody controls).
   */
  forClient(client: string, options?: { readonly keyedFaults?: boolean }): MemoryCluster;
  readonly clock: Clock;
}

const bootNamespaces = ['default', 'kube-system', 'kube-public'];

/** kube-apiserver's `--min-request-timeout` default, 1800 s. */
const DEFAULT_MIN_REQUEST_TIMEOUT_MS = 1_800_000;

/** Namespaces and CRDs are served whatever the scope table says: the server cannot work without them. */
const withEssentialKinds = (scopes: ScopeTable): ScopeTable =>
  new Map<string, Scope>([
    ['/Namespace', 'Cluster'],
    ['apiextensions.k8s.io/CustomResourceDefinition', 'Cluster'],
    ...scopes,
  ]);

export const createMemoryCluster = (options: MemoryClusterOptions = {}): MemoryCluster => {
  const clock = options.clock ?? systemClock;
  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const faults = createFaultRecord(options.faults ?? {}, random, {
    minRequestTimeoutMs: options.minRequestTimeoutMs ?? DEFAULT_MIN_REQUEST_TIMEOUT_MS,
    // its own stream: the request timeouts shift no fault of any profile
    random: mulberry32(seed ^ 0x1b873593),
  });
  const hub = watchHubOf(clock, options, faults, () => state);
  const controllers = createControllerScheduler(() => state);
  const state: ServerState = {
    clock,
    registry: createKindRegistry(builtinKinds(withEssentialKinds(options.scopes ?? builtinScopes))),
    objects: new Map(),
    history: createEventHistory(Math.max(1, options.watchHistory ?? 1000), 0),
    resourceVersion: 0,
    ids: mulberry32(seed ^ 0x5bd1e995),
    allocator: createServiceAllocator(options.serviceClusterIpRange),
    maxObjectBytes: options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES,
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES,
    defaulting: options.defaulting ?? true,
    admission: options.admission ?? [],
    rules: crdRules(),
    gc: options.gc ?? true,
    workloads: options.workloads ?? false,
    pods: options.pods ?? options.workloads ?? false,
    createSystemObject: (object) => {
      const created = createObject(state, object);
      return E.isRight(created) ? created.right : undefined;
    },
    podFails: () => faults.podFails(),
    publish: (entry) => hub.publish(entry),
    changed: () => controllers.schedule(),
    kindRemoved: (info) => hub.endKind(groupKindKey(info.group, info.kind)),
  };
  bootNamespaces.forEach((name) => createObject(state, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const gate = createApiGate({
    clock,
    random,
    profile: () => faults.profile,
    touch: (ref) => touch(state, ref),
    openWatch: (sink) => hub.open(sink),
    startWatch: (query, pending) => startWatch(state, query, pending),
    injected: faults.inject,
  });
  return memoryClusterOf(state, gate, hub, faults, seed);
};

/** The watch streams, with the seeded faults of each event and the server's request timeout. */
const watchHubOf = (
  clock: Clock,
  options: MemoryClusterOptions,
  faults: FaultRecord,
  state: () => ServerState,
): WatchHub =>
  createWatchHub({
    clock,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    resourceVersion: () => state().resourceVersion,
    eventFaults: faults.eventFaults,
    expired: () => compacted(state()),
    serverTimeout: faults.watchTimeout,
    timedOut: () => faults.inject('watch ended by the server (request timeout)'),
  });

/**
 * The cluster a test holds: the port's verbs through the gate, the server controls and the fault
 * profile; `forClient` gives each named client its own fault stream over the same server.
 */
const memoryClusterOf = (
  state: ServerState,
  gate: ApiGate,
  hub: WatchHub,
  faults: FaultRecord,
  seed: number,
): MemoryCluster => {
  const clients = new Map<string, MemoryCluster>();
  const cluster: MemoryCluster = {
    clock: state.clock,
    get faults() {
      return faults.profile;
    },
    set faults(next: FaultProfile) {
      faults.profile = next;
    },
    setFaults: (next) => {
      faults.profile = next;
    },
    injectedFaults: faults.injected,
    ...portVerbs(state, gate),
    ...serverControls(state, gate, hub),
    forClient: (client, options) => {
      const keyed = options?.keyedFaults === true;
      const name = `${keyed ? 'keyed ' : ''}${client}`;
      const known = clients.get(name);
      if (known !== undefined) return known;
      const own: MemoryCluster = {
        ...cluster,
        get faults() {
          return faults.profile;
        },
        set faults(next: FaultProfile) {
          faults.profile = next;
        },
        ...(keyed
          ? keyedVerbs(state, gate, keyedRandom(seed ^ stringHash(client)))
          : portVerbs(state, gate.withRandom(mulberry32(seed ^ stringHash(client))))),
      };
      clients.set(name, own);
      return own;
    },
  };
  return cluster;
};

/** A fault stream per call key: seeded from `seed`, the key and how many calls with that key came before. */
const keyedRandom = (seed: number): ((key: string) => Random) => {
  const counts = new Map<string, number>();
  return (key) => {
    const count = counts.get(key) ?? 0;
    counts.set(key, count + 1);
    return mulberry32(seed ^ stringHash(`${key} #${count}`));
  };
};

type Named = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name?: string;
};

const keyOf = (verb: string, { apiVersion, kind, namespace, name }: Named): string =>
  `${verb} ${apiVersion} ${kind} ${namespace ?? ''}/${name ?? ''}`;

const keyOfObject = (verb: string, object: Resource): string =>
  keyOf(verb, {
    apiVersion: object.apiVersion,
    kind: object.kind,
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  });

/**
 * The port's verbs with each call's faults drawn from the stream of its key (`randomFor`): the
 * verb, the kind, the object (or the namespace of a list or watch), not the order calls arrive in.
 */
const keyedVerbs = (state: ServerState, gate: ApiGate, randomFor: (key: string) => Random): Cluster => {
  const by = (key: string): Cluster => portVerbs(state, gate.withRandom(randomFor(key)));
  return {
    ...portVerbs(state, gate),
    get: (ref) => by(keyOf('get', ref)).get(ref),
    list: (query) => by(keyOf('list', query)).list(query),
    create: (object, options) => by(keyOfObject('create', object)).create(object, options),
    update: (object, options) => by(keyOfObject('update', object)).update(object, options),
    patch: (ref, patch, options) => by(keyOf('patch', ref)).patch(ref, patch, options),
    delete: (ref, options) => by(keyOf('delete', ref)).delete(ref, options),
    updateStatus: (object, options) => by(keyOfObject('updateStatus', object)).updateStatus(object, options),
    patchStatus: (ref, patch, options) => by(keyOf('patchStatus', ref)).patchStatus(ref, patch, options),
    watch: (query, sink) => by(keyOf('watch', query)).watch(query, sink),
  };
};

/** FNV-1a of `text`: derives a client's fault-stream seed from its name. */
const stringHash = (text: string): number =>
  [...text].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0, 0x811c9dc5);

/** Which faults hit, counted by name (`Conflict on patch`, `watch event duplicated`, …) in first-seen order. */
type FaultRecord = ReturnType<typeof createFaultRecord>;

const createFaultRecord = (
  initial: FaultProfile,
  random: Random,
  requestTimeout: { readonly minRequestTimeoutMs: number; readonly random: Random },
) => {
  const counts = new Map<string, number>();
  const record = {
    profile: initial,
    inject: (fault: string): void => {
      counts.set(fault, (counts.get(fault) ?? 0) + 1);
    },
    injected: (): ReadonlyMap<string, number> => new Map(counts),
    eventFaults: (group: string, kind: string) => {
      const decided = decideEvent(random, record.profile, group, kind);
      if (decided.duplicate) record.inject('watch event duplicated');
      if (decided.close) record.inject('watch closed');
      if (decided.expire) record.inject('watch expired (410)');
      return decided;
    },
    watchTimeout: (group: string, kind: string, serverPicks: boolean) =>
      decideWatchTimeout(random, record.profile, group, kind) ??
      (serverPicks
        ? between(requestTimeout.random, requestTimeout.minRequestTimeoutMs, 2 * requestTimeout.minRequestTimeoutMs)
        : undefined),
    podFails: (): boolean => {
      const rate = record.profile.pods?.failRate;
      // drawn only when set: profiles without it replay exactly as before it existed
      const fails = rate !== undefined && random() < rate;
      if (fails) record.inject('pod failed (CrashLoopBackOff)');
      return fails;
    },
  };
  return record;
};

/** Forgets the change log up to now (etcd compaction); the error a watch from before then gets. */
const compacted = (state: ServerState): ClusterError => {
  state.history.compact(state.resourceVersion);
  return clusterError('Gone', `too old resource version: compacted through ${state.resourceVersion}`, { code: 410 });
};

/**
 * As the Kubernetes adapter: a write naming a namespace for a cluster-scoped kind is refused
 * (the server would drop the namespace and act cluster-wide; issue 19).
 */
const scoped = <A>(
  state: ServerState,
  ref: ObjectRef,
  write: () => E.Either<ClusterError, A>,
): E.Either<ClusterError, A> => {
  const info = state.registry.resolve(ref.apiVersion, ref.kind);
  const problem = E.isRight(info) ? clusterScopedWriteProblem(info.right.scope, ref) : undefined;
  return problem === undefined ? write() : E.left(clusterError('Forbidden', problem, { ref }));
};

/** create and update of the main resource: scope, request size and `Strict` fields checked before the verb. */
const writeVerbs = (state: ServerState, { call }: ApiGate): Pick<Cluster, 'create' | 'update'> => ({
  create: (object, writeOptions) =>
    call('create', object.apiVersion, object.kind, () =>
      scoped(state, refOfInput(object), () =>
        withinRequestLimit(state, object, () =>
          pipe(
            strictFields(state, writeOptions, object),
            E.flatMap(() =>
              createObject(state, object, { ...dryRunOf(writeOptions), ownership: updateBy(writeOptions) }),
            ),
          ),
        ),
      ),
    ),
  update: (object, writeOptions) =>
    call(
      'update',
      object.apiVersion,
      object.kind,
      () =>
        scoped(state, refOfInput(object), () =>
          withinRequestLimit(state, object, () =>
            pipe(
              strictFields(state, writeOptions, object),
              E.flatMap(() =>
                updateObject(state, object, 'main', { ...dryRunOf(writeOptions), ownership: updateBy(writeOptions) }),
              ),
            ),
          ),
        ),
      refOfInput(object),
    ),
});

/** patch and delete of the main resource, and both writes of the status subresource. */
const changeVerbs = (
  state: ServerState,
  { call }: ApiGate,
): Pick<Cluster, 'patch' | 'delete' | 'updateStatus' | 'patchStatus'> => ({
  patch: (ref, patch, writeOptions) =>
    call(
      'patch',
      ref.apiVersion,
      ref.kind,
      () =>
        scoped(state, ref, () =>
          withinRequestLimit(state, patchBody(patch), () => patched(state, ref, patch, writeOptions)),
        ),
      ref,
    ),
  delete: (ref, deleteOptions) =>
    call('delete', ref.apiVersion, ref.kind, () => scoped(state, ref, () => deleteObject(state, ref, deleteOptions))),
  updateStatus: (object, writeOptions) =>
    call(
      'updateStatus',
      object.apiVersion,
      object.kind,
      () =>
        withinRequestLimit(state, object, () =>
          updateObject(state, object, 'status', { ownership: updateBy(writeOptions) }),
        ),
      refOfInput(object),
    ),
  patchStatus: (ref, patch, writeOptions) =>
    call(
      'patchStatus',
      ref.apiVersion,
      ref.kind,
      () =>
        withinRequestLimit(state, patchBody(patch), () =>
          patchObject(state, ref, patch, { subresource: 'status', ...managerOf(writeOptions) }),
        ),
      ref,
    ),
});

/** The `Cluster` port's verbs: each call passes the gate (outages, faults), then the verb module answers. */
const portVerbs = (state: ServerState, gate: ApiGate): Cluster => {
  const { call } = gate;
  return {
    get: (ref) => call('get', ref.apiVersion, ref.kind, () => getObject(state, ref)),
    list: (query) => call('list', query.apiVersion, query.kind, () => listObjects(state, query)),
    ...writeVerbs(state, gate),
    ...changeVerbs(state, gate),
    watch: gate.watch,
    scopeOf: (apiVersion, kind) => () => {
      const down = gate.outage();
      return Promise.resolve(
        down !== undefined
          ? E.left(down)
          : pipe(
              state.registry.resolve(apiVersion, kind),
              E.map((info) => info.scope),
            ),
      );
    },
  };
};

/** What a client sends for a patch: the operations of a JSON Patch, else the body. */
const patchBody = (patch: Patch): unknown => (patch.type === 'json' ? patch.operations : patch.body);

/** A patch of the main resource; under `Strict` the patched object is decoded first (a dry run, then the write). */
const patched = (
  state: ServerState,
  ref: ObjectRef,
  patch: Patch,
  writeOptions: WriteOptions | undefined,
): E.Either<ClusterError, Resource> =>
  pipe(
    writeOptions?.fieldValidation === 'Strict'
      ? pipe(
          patchObject(state, ref, patch, { subresource: 'main', dryRun: true, ...managerOf(writeOptions) }),
          E.flatMap((dryRun) => strictFields(state, writeOptions, dryRun, patch.type === 'apply' ? 'apply' : 'patch')),
          E.map(() => undefined),
        )
      : E.right<ClusterError, undefined>(undefined),
    E.flatMap(() =>
      patchObject(state, ref, patch, { subresource: 'main', ...dryRunOf(writeOptions), ...managerOf(writeOptions) }),
    ),
  );

/**
 * The manager of a write that is no apply: the request's fieldManager (the HTTP server puts the User-Agent's there when
 * none).
 */
const managerOf = (writeOptions: WriteOptions | undefined): { readonly fieldManager?: string } =>
  writeOptions?.fieldManager === undefined ? {} : { fieldManager: writeOptions.fieldManager };

const updateBy = (writeOptions: WriteOptions | undefined): Ownership => ({
  operation: 'Update',
  manager: writeOptions?.fieldManager ?? '',
});

/**
 * What a test can do to the server that a real cluster does not offer: restarts, outages, a snapshot, kinds without
 * CRDs.
 */
const serverControls = (
  state: ServerState,
  gate: ApiGate,
  hub: WatchHub,
): Pick<
  MemoryCluster,
  'restart' | 'expireWatches' | 'unavailableFor' | 'objects' | 'registerKind' | 'servedKinds' | 'settle'
> => ({
  restart: (restartOptions) => {
    // Clients resume dropped streams; the restarted watch cache no longer has their version.
    hub.closeAll(
      clusterError('Gone', 'too old resource version: the API server restarted and its watch cache starts over', {
        code: 410,
      }),
    );
    state.history.compact(state.resourceVersion);
    if (restartOptions?.downtimeMs !== undefined) gate.unavailableUntil(state.clock.now() + restartOptions.downtimeMs);
  },
  expireWatches: () => hub.expireAll(compacted(state)),
  unavailableFor: (ms) => {
    gate.unavailableUntil(state.clock.now() + ms);
  },
  objects: () =>
    [...state.objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, object]) => deepCopy(object)),
  registerKind: (registration) =>
    state.registry.register({
      group: registration.group,
      kind: registration.kind,
      plural: registration.plural,
      scope: registration.scope,
      versions: new Set([registration.version]),
      statusSubresource: registration.statusSubresource ?? true,
      generation: true,
      custom: true,
      watchCacheFrom: state.resourceVersion,
    }),
  servedKinds: () =>
    state.registry.all().map(({ group, kind, plural, scope, versions, statusSubresource, custom }) => ({
      group,
      kind,
      plural,
      scope,
      versions,
      statusSubresource,
      custom,
    })),
  settle: () => flushMicrotasks(),
});

/**
 * A concurrent writer: the object gets a new resourceVersion and nothing else (as a managedFields-only change does).
 */
const touch = (state: ServerState, ref: ObjectRef): void => {
  const info = state.registry.resolve(ref.apiVersion, ref.kind);
  const stored = E.isRight(info) ? storedObject(state, info.right, ref.namespace, ref.name) : undefined;
  if (E.isRight(info) && stored !== undefined) commitPut(state, info.right, stored, stored);
};

/** The reference of a client's object, read defensively (the verb reports a malformed one). */
const refOfInput = (object: Resource): ObjectRef => ({
  apiVersion: object?.apiVersion,
  kind: object?.kind,
  name: object?.metadata?.name,
  ...defined({ namespace: object?.metadata?.namespace }),
});

const dryRunOf = (options: { readonly dryRun?: boolean } | undefined): { readonly dryRun?: boolean } =>
  options?.dryRun === undefined ? {} : { dryRun: options.dryRun };
