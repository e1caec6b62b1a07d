/**
 * Helpers of the Cluster contract suite: unwrapping port answers, real-time polling (a real API
 * server is asynchronous), watch recording, unique names and object builders.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import type { JsonObject } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import type { Cluster, WatchEvent, WatchQuery } from '../../core/ports/cluster.js';
import { showClusterError, type ClusterError, type ClusterErrorTag } from '../../core/ports/errors.js';
import { eventually as sharedEventually } from '../support/eventually.js';

/** What a backend hands the suite. */
export type ContractEnv = {
  readonly cluster: Cluster;
  /** A fresh namespace that exists, for this suite only. */
  readonly namespace: string;
  cleanup(): Promise<void>;
  /** Whether ownerReference garbage collection (and the namespace controller) runs. */
  readonly gc: boolean;
};

/** The successful answer, or a test failure naming the error. */
export const must = async <A>(task: TE.TaskEither<ClusterError, A>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`expected success, got ${showClusterError(result.left)}`);
  return result.right;
};

/** The error answer, or a test failure when the call succeeded. */
export const failure = async <A>(task: TE.TaskEither<ClusterError, A>): Promise<ClusterError> => {
  const result = await task();
  if (E.isRight(result))
    throw new Error(`expected an error, got success: ${JSON.stringify(result.right).slice(0, 300)}`);
  return result.left;
};

/** Asserts the error's tag and HTTP code (a readable message when they differ). */
export const expectError = (error: ClusterError, tag: ClusterErrorTag, code: number): void => {
  if (error._tag !== tag || error.code !== code)
    throw new Error(`expected ${tag} (${code}), got ${showClusterError(error)}`);
};

/**
 * The answer to a JSON Patch that parses but cannot be applied (failed `test`, missing path):
 * kube-apiserver's `applyJSPatch` wraps every apply error in a 422, reason Invalid
 * (`NewGenericServerResponse(http.StatusUnprocessableEntity, …)`). One constant, so a backend
 * that proves otherwise changes one line.
 */
export const JSON_PATCH_APPLY_FAILURE = { tag: 'Invalid', code: 422 } as const;

/** Retries `check` until it stops throwing (polling every 50 ms); see test/support/eventually.ts. */
export const eventually = <A>(check: () => Promise<A> | A, timeoutMs = 30_000, intervalMs = 50): Promise<A> =>
  sharedEventually(check, timeoutMs, intervalMs);

/** A name no earlier run used (suites may run again against the same real server). */
export const unique = (prefix: string): string => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** Up to six random lowercase letters (a kind's name takes no digits), `fallback` if none came out. */
export const letterSuffix = (fallback: string): string =>
  Math.random()
    .toString(36)
    .replace(/[^a-z]/g, '')
    .slice(0, 6) || fallback;

export const asNumber = (resourceVersion: string | undefined): bigint => {
  if (resourceVersion === undefined || !/^\d+$/.test(resourceVersion))
    throw new Error(`not a numeric resourceVersion: ${String(resourceVersion)}`);
  return BigInt(resourceVersion);
};

export type RecordedWatch = {
  readonly events: WatchEvent[];
  /** Settles with the close reason (undefined for a clean close). */
  readonly closed: Promise<ClusterError | undefined>;
  readonly closedCalls: () => number;
  stop(): void;
  /** Object events only (bookmarks left out). */
  objectEvents(): ReadonlyArray<Extract<WatchEvent, { readonly object: Resource }>>;
};

export const recordWatch = (cluster: Cluster, query: WatchQuery): RecordedWatch => {
  const events: WatchEvent[] = [];
  let calls = 0;
  let settle: (error: ClusterError | undefined) => void = () => undefined;
  const closed = new Promise<ClusterError | undefined>((resolve) => {
    settle = resolve;
  });
  const handle = cluster.watch(query, {
    event: (event) => {
      events.push(event);
    },
    closed: (error) => {
      calls += 1;
      settle(error);
    },
  });
  return {
    events,
    closed,
    closedCalls: () => calls,
    stop: () => handle.stop(),
    objectEvents: () =>
      events.filter((e): e is Extract<WatchEvent, { readonly object: Resource }> => e.type !== 'BOOKMARK'),
  };
};

export const configMap = (
  namespace: string,
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) },
  data,
});

export const contractGroup = 'contract.kreconcile.io';
export const widgetApiVersion = `${contractGroup}/v1`;

export const widget = (namespace: string, name: string, spec: JsonObject, metadata: JsonObject = {}): Resource => ({
  apiVersion: widgetApiVersion,
  kind: 'Widget',
  metadata: { ...metadata, name, namespace },
  spec,
});

export const widgetRef = (namespace: string, name: string) => ({
  apiVersion: widgetApiVersion,
  kind: 'Widget',
  namespace,
  name,
});
export const configMapRef = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name,
});

const preserve = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/**
 * `Widget`: namespaced, status subresource, spec and status free-form, one schema default
 * (`spec.tier`); unknown top-level fields are pruned.
 */
export const widgetCrd: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${contractGroup}` },
  spec: {
    group: contractGroup,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { ...preserve, properties: { tier: { type: 'string', default: 'standard' } } },
              status: preserve,
            },
          },
        },
      },
    ],
  },
};

/** A cluster-scoped kind without status subresource, unique per run (its lifecycle is under test). */
export const gadgetCrd = (suffix: string): Resource => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadget${suffix}s.${contractGroup}` },
  spec: {
    group: contractGroup,
    scope: 'Cluster',
    names: {
      plural: `gadget${suffix}s`,
      singular: `gadget${suffix}`,
      kind: `Gadget${suffix}`,
      listKind: `Gadget${suffix}List`,
    },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: preserve } }],
  },
});

/** Creates a CRD (reusing one left by an earlier run) and waits until its kind is served. */
export const ensureServed = async (cluster: Cluster, crd: Resource, namespace?: string): Promise<void> => {
  const created = await cluster.create(crd)();
  if (E.isLeft(created) && created.left._tag !== 'AlreadyExists')
    throw new Error(`creating ${crd.metadata.name}: ${showClusterError(created.left)}`);
  const spec = crd.spec as { group: string; names: { kind: string }; versions: ReadonlyArray<{ name: string }> };
  const apiVersion = `${spec.group}/${spec.versions[0]?.name ?? 'v1'}`;
  await eventually(
    async () => {
      const listed = await cluster.list({
        apiVersion,
        kind: spec.names.kind,
        ...(namespace === undefined ? {} : { namespace }),
      })();
      if (E.isLeft(listed)) throw new Error(`${spec.names.kind} not served yet: ${showClusterError(listed.left)}`);
    },
    60_000,
    100,
  );
};
