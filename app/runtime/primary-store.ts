/**
 * The primary kind's store: the informer of Applications (or an embedder's kind), the objects it
 * holds by queue key and decoded, and which of its events are a reason to reconcile. Every
 * primary is announced again at each resync. Started once (resolves on the first list), stopped once.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  jsonEqual,
  markPrefixOf,
  type Application,
  type Clock,
  type ClusterError,
  type ClusterReader,
  type JsonValue,
  type ObjectRef,
  type Resource,
  type WatchSource,
} from '../../core/internal.js';
import { Dependants } from './dependants.js';
import { Informer, type InformerEvent } from './informer.js';
import type { Primary } from './primary.js';

/** The queue key of a primary: `namespace/name` (`default/name` when it has no namespace). */
export const applicationKey = (ref: { readonly namespace?: string; readonly name: string }): string =>
  `${ref.namespace ?? 'default'}/${ref.name}`;

/** A change worth a reconcile (status-only changes are filtered out), or a primary gone. */
export type PrimaryChange =
  | {
      readonly _tag: 'Changed';
      readonly key: string;
      /** The decoded primary; `undefined` when it does not decode (its reconcile stalls it InvalidSpec). */
      readonly application: Application | undefined;
      /** It existed before this change: kinds it named may no longer be named. */
      readonly replaced: boolean;
    }
  | { readonly _tag: 'Deleted'; readonly key: string; readonly object: Resource };

export type PrimaryStoreOptions = {
  readonly primary: Primary;
  /** Watch only this namespace (default: all). */
  readonly namespace?: string;
  readonly clock: Clock;
  /** Every primary announced again through `onResync`, from the cache, this often (0 = never). */
  readonly resyncMs: number;
  /**
   * Full relist this often (0 = never): turns watch events a proxy lost without closing the stream into events again.
   */
  readonly relistMs: number;
  readonly onChange: (change: PrimaryChange) => void;
  readonly onResync: (key: string) => void;
  readonly onError: (error: ClusterError, where: string) => void;
  /** A primary whose `spec.dependsOn` relation to a changed one may let it proceed (see `dependants`). */
  readonly onDependant?: (key: string) => void;
};

export class PrimaryStore {
  private readonly informer: Informer;
  /**
   * `spec.dependsOn` among this store's primaries (dependants.ts), fed every cached object as it
   * changes, status included, whether by a watch event or by our own write's answer.
   */
  readonly dependants: Dependants;
  /** The owner-mark prefix of this kind's children ('' for Applications, whose marks are `ns/name`). */
  private readonly markPrefix: string;
  private cancelResync: (() => void) | undefined;
  private stopped = false;

  constructor(
    cluster: ClusterReader & WatchSource,
    private readonly options: PrimaryStoreOptions,
  ) {
    this.markPrefix = markPrefixOf(options.primary);
    this.dependants = new Dependants({
      object: (key) => this.object(key),
      enqueue: (key) => options.onDependant?.(key),
    });
    this.informer = new Informer(
      cluster,
      {
        apiVersion: options.primary.apiVersion,
        kind: options.primary.kind,
        ...(options.namespace ? { namespace: options.namespace } : {}),
      },
      {
        clock: options.clock,
        onEvent: (event) => this.onEvent(event),
        relistEveryMs: options.relistMs,
        onError: (error, phase) => options.onError(error, `application ${phase}`),
      },
    );
  }

  get primary(): Primary {
    return this.options.primary;
  }

  /** Lists and watches; resolves once the first list is in (retrying until then), then resyncs periodically. */
  async start(): Promise<void> {
    await this.informer.start();
    this.scheduleResync();
  }

  /** Stops the watch and the resync for good. Idempotent. */
  stop(): void {
    this.stopped = true;
    this.cancelResync?.();
    this.informer.stop();
  }

  get size(): number {
    return this.informer.size;
  }

  /** The reference a queue key names (this store's kind). */
  refOf(key: string): ObjectRef {
    const [namespace, name] = splitKey(key);
    return { apiVersion: this.options.primary.apiVersion, kind: this.options.primary.kind, namespace, name };
  }

  /** The cached object of a queue key, as last listed, watched or written by us. */
  object(key: string): Resource | undefined {
    // A key with one '/' (`namespace/name`) is the informer's own key for that object: looked up as it is, not split
    // and joined again.
    const slash = key.indexOf('/');
    return slash >= 0 && !key.includes('/', slash + 1)
      ? this.informer.getByKey(key)
      : this.informer.get(...splitKey(key));
  }

  /** The cached object decoded (`undefined` when absent or not decodable); decoded once per object version. */
  application(key: string): Application | undefined {
    const object = this.object(key);
    return object === undefined ? undefined : decodedOrUndefined(this.options.primary.decode(object));
  }

  /** The queue keys of every cached primary. */
  keys(): ReadonlyArray<string> {
    return this.informer.list().map((object) => applicationKey(object.metadata));
  }

  /** Every cached primary that decodes (those that do not name no kinds). */
  *applications(): Generator<Application> {
    for (const object of this.informer.list()) {
      const application = decodedOrUndefined(this.options.primary.decode(object));
      if (application !== undefined) yield application;
    }
  }

  /** Whether `object` is of this store's kind (a write's answer then belongs here). */
  holds(object: { readonly apiVersion: string; readonly kind: string }): boolean {
    return object.apiVersion === this.options.primary.apiVersion && object.kind === this.options.primary.kind;
  }

  /** Read-your-own-writes: a write's answer replaces the cached object unless the cache is newer. */
  apply(object: Resource): void {
    const key = applicationKey(object.metadata);
    const before = this.object(key);
    this.informer.apply(object);
    const after = this.object(key);
    if (after !== before) this.dependants.observe(before, after);
  }

  /** The queue key (`ns/name`) of a child's owner mark, when the mark names this store's kind. */
  keyOfOwnerMark(mark: string): string | undefined {
    return keyOfMark(this.markPrefix, mark);
  }

  private onEvent(event: InformerEvent): void {
    const key = applicationKey(event.object.metadata);
    this.dependants.observe(
      event.type === 'DELETED' ? event.object : event.old,
      event.type === 'DELETED' ? undefined : event.object,
    );
    if (event.type === 'DELETED') {
      this.options.onChange({ _tag: 'Deleted', key, object: event.object });
      return;
    }
    if (event.type === 'MODIFIED' && event.old !== undefined && onlyStatusChanged(event.old, event.object)) return;
    const application = decodedOrUndefined(this.options.primary.decode(event.object));
    this.options.onChange({ _tag: 'Changed', key, application, replaced: event.old !== undefined });
  }

  private scheduleResync(): void {
    if (this.options.resyncMs <= 0 || this.stopped) return;
    this.cancelResync = this.options.clock.setTimer(this.options.resyncMs, () => {
      for (const key of this.keys()) this.options.onResync(key);
      this.scheduleResync();
    });
  }
}

/** The queue key (`ns/name`) of a child's owner mark, when the mark names `primary`'s kind. */
export const ownerKeyOf = (primary: Primary): ((mark: string) => string | undefined) => {
  const prefix = markPrefixOf(primary);
  return (mark) => keyOfMark(prefix, mark);
};

const keyOfMark = (prefix: string, mark: string): string | undefined => {
  if (prefix === '') return mark.includes(':') ? undefined : mark;
  return mark.startsWith(prefix) ? mark.slice(prefix.length) : undefined;
};

/** A queue key `namespace/name` (`/name` without a namespace) as its two parts. */
const splitKey = (key: string): [string, string] => {
  const slash = key.indexOf('/');
  return slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
};

const decodedOrUndefined = (decoded: E.Either<unknown, Application>): Application | undefined =>
  E.isRight(decoded) ? decoded.right : undefined;

/** A status-only update (typically our own status write) is not a reason to reconcile again. */
const onlyStatusChanged = (before: Resource, after: Resource): boolean => {
  const strip = (object: Resource): JsonValue => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = object.metadata;
    return { ...object, metadata, status: null };
  };
  return jsonEqual(strip(before), strip(after));
};
