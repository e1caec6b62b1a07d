/** The memory API server's state: stored objects, the global resourceVersion, kinds, allocators, change log. */
import type { Resource } from '../../core/model/resource.js';
import type { Clock } from '../../core/ports/cluster.js';
import type { EventHistory, HistoryEntry } from './watch/event-history.js';
import type { KindInfo } from './kinds/kind-info.js';
import type { KindRegistry } from './kinds/kind-registry.js';
import type { Random } from './faults/prng.js';
import type { ServiceAllocator } from './hooks/service-allocator.js';
import type { MutatingAdmission } from './admission/index.js';
import type { CrdRuleEngine } from '../cel/crd-rules.js';

export type ServerState = {
  readonly clock: Clock;
  readonly registry: KindRegistry;
  /** Frozen objects by {@link storageKey}. */
  readonly objects: Map<string, Resource>;
  readonly history: EventHistory;
  /** The last resourceVersion handed out (etcd's revision). */
  resourceVersion: number;
  /** UIDs and generated values; a stream separate from fault injection so faults do not shift UIDs. */
  readonly ids: Random;
  readonly allocator: ServiceAllocator;
  readonly defaulting: boolean;
  /** Mutating admission registered by tests (admission/mutating-admission.ts); empty on a bare server. */
  readonly admission: ReadonlyArray<MutatingAdmission>;
  /** The CRDs' `x-kubernetes-validations` (CEL), with its compile cache. */
  readonly rules: CrdRuleEngine;
  /** etcd's `--max-request-bytes`: larger writes are refused (verbs/storage-limit.ts). */
  readonly maxObjectBytes: number;
  /** kube-apiserver's request body limit: larger bodies are answered 413 (verbs/storage-limit.ts). */
  readonly maxRequestBodyBytes: number;
  /**
   * Whether the garbage collector, namespace and storage protection controllers run (kube-controller-manager's part).
   */
  readonly gc: boolean;
  /** Whether simulated workload controllers settle workload statuses (see workload-controllers.ts). */
  readonly workloads: boolean;
  /** Whether the simulated workloads also get ReplicaSets and Pods (pod-controllers.ts). */
  readonly pods: boolean;
  /** Creates an object as a controller of the server does (workload Pods); undefined when refused. */
  readonly createSystemObject: (object: Resource) => Resource | undefined;
  /** Whether the Pod about to start fails (the `pods.failRate` fault, drawn and counted). */
  readonly podFails: () => boolean;
  /** Called for every committed change (watch fan-out). */
  readonly publish: (entry: HistoryEntry) => void;
  /** Called after every commit (background controllers). */
  readonly changed: () => void;
  /** Called when a kind stops being served (its watches end). */
  readonly kindRemoved: (info: KindInfo) => void;
};

/** Storage identity: one object per (group, kind, namespace, name), served at any version of its kind. */
export const storageKey = (
  info: Pick<KindInfo, 'group' | 'kind'>,
  namespace: string | undefined,
  name: string,
): string => `${info.group}/${info.kind}|${namespace ?? ''}|${name}`;

/** The namespace an object of this kind lives in: none when cluster-scoped, `default` when unset. */
export const namespaceFor = (info: KindInfo, namespace: string | undefined): string | undefined =>
  info.scope === 'Cluster' ? undefined : namespace === undefined || namespace === '' ? 'default' : namespace;

export const storedObject = (
  state: ServerState,
  info: KindInfo,
  namespace: string | undefined,
  name: string,
): Resource | undefined => state.objects.get(storageKey(info, namespaceFor(info, namespace), name));

/** Objects of one kind (optionally one namespace), in storage-key order as etcd lists them. */
export const objectsOfKind = (state: ServerState, info: KindInfo, namespace?: string): ReadonlyArray<Resource> => {
  const prefix = `${info.group}/${info.kind}|${info.scope === 'Cluster' || namespace === undefined ? '' : `${namespace}|`}`;
  return [...state.objects.entries()]
    .filter(([key]) => key.startsWith(prefix))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, object]) => object);
};
