/**
 * Ports: what the runtime needs from a cluster, shaped by the core's needs (TYPES ONLY).
 * Both adapters (memory, kubernetes) implement them and pass the same contract suite.
 */
import type * as O from 'fp-ts/lib/Option.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import type { JsonObject } from '../json/json.js';
import type { JsonPatchOperation } from '../model/plan.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import type { Scope } from '../model/scope.js';
import type { ClusterError } from './errors.js';

/** Which objects of one kind: a namespace (all when absent) and an equality-based label selector. */
export type ListQuery = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  /** `key=value,key2!=value,key3,!key4,key in (a,b),key notin (c)` (Kubernetes syntax). */
  readonly labelSelector?: string;
};

export type ResourceList = {
  readonly items: ReadonlyArray<Resource>;
  /** Collection resourceVersion: start a watch from it to miss nothing. */
  readonly resourceVersion: string;
};

export type Patch =
  | { readonly type: 'json'; readonly operations: ReadonlyArray<JsonPatchOperation> }
  | { readonly type: 'merge'; readonly body: JsonObject }
  /** Strategic merge patch (built-in kinds only: custom resources answer 415), kubectl's and client-go's default. */
  | { readonly type: 'strategic'; readonly body: JsonObject }
  | { readonly type: 'apply'; readonly body: Resource; readonly fieldManager: string; readonly force?: boolean };

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** Preconditions of a delete: the server refuses (409 Conflict) when the stored object differs. */
export type DeletePreconditions = { readonly resourceVersion?: string; readonly uid?: string };

export type DeleteOptions = {
  readonly propagationPolicy?: PropagationPolicy;
  readonly preconditions?: DeletePreconditions;
};

export type WriteOptions = {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
  /**
   * `Strict`: a field the kind does not have is refused (400, naming it) instead of dropped
   * (kube-apiserver's `fieldValidation`; the default `Warn` drops it). The operator writes children
   * strictly, so a typo stalls `InvalidSpec` instead of a perpetual diff.
   */
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
};

/** ClusterReader knows how to read objects; absence is not an error (`Option`). */
export interface ClusterReader {
  get(ref: ObjectRef): TE.TaskEither<ClusterError, O.Option<Resource>>;
  list(query: ListQuery): TE.TaskEither<ClusterError, ResourceList>;
}

/** ClusterWriter knows how to change objects; every write answers with the object as stored. */
export interface ClusterWriter {
  create(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource>;
  /** Full replacement; `metadata.resourceVersion` when set is an optimistic-concurrency precondition. */
  update(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource>;
  patch(ref: ObjectRef, patch: Patch, options?: WriteOptions): TE.TaskEither<ClusterError, Resource>;
  /**
   * Resolves with the object when deletion is pending (finalizers), `none` once it is gone. 404 is an error here;
   * callers decide.
   */
  delete(ref: ObjectRef, options?: DeleteOptions): TE.TaskEither<ClusterError, O.Option<Resource>>;
}

/** StatusWriter knows how to write the status subresource (ignores everything but `status`). */
export interface StatusWriter {
  /** `options.fieldManager` names the writer in managedFields (other options do not apply to /status). */
  updateStatus(object: Resource, options?: WriteOptions): TE.TaskEither<ClusterError, Resource>;
  patchStatus(ref: ObjectRef, patch: Patch, options?: WriteOptions): TE.TaskEither<ClusterError, Resource>;
}

export type WatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: Resource }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string };

export type WatchQuery = ListQuery & {
  /** Start after this version; `Gone` (410) when it is too old. */
  readonly resourceVersion?: string;
  readonly allowBookmarks?: boolean;
};

/** Receives a stream's events; `closed` is called exactly once, with the reason when abnormal. */
export interface WatchSink {
  event(event: WatchEvent): void;
  closed(error?: ClusterError): void;
}

export interface WatchHandle {
  /** Stops the stream; `closed` is not called after an explicit stop. Idempotent. */
  stop(): void;
}

/** WatchSource knows how to stream changes of one kind from a resourceVersion. */
export interface WatchSource {
  watch(query: WatchQuery, sink: WatchSink): WatchHandle;
}

/** Discovery knows which kinds exist and how they are scoped. */
export interface Discovery {
  scopeOf(apiVersion: string, kind: string): TE.TaskEither<ClusterError, Scope>;
}

/** Everything the runtime needs from one cluster. */
export interface Cluster extends ClusterReader, ClusterWriter, StatusWriter, WatchSource, Discovery {}

/** Time for the shell (the core takes `now` as an argument instead). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after `ms`; returns a cancel function. */
  setTimer(ms: number, callback: () => void): () => void;
  sleep(ms: number): Promise<void>;
}
