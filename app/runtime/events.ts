/** Kubernetes Events for what a reconcile did (created/patched/deleted) and for failures. */
import * as E from 'fp-ts/lib/Either.js';
import {
  getIn,
  showClusterError,
  showRef,
  type Cluster,
  type ClusterError,
  type Resource,
} from '../../core/internal.js';
import type { ReconcileResult } from '../reconcile/reconcile-application.js';

type Note = { readonly reason: string; readonly message: string; readonly type: 'Normal' | 'Warning' };

const REASONS = { create: 'Created', patch: 'Patched', delete: 'Deleted' } as const;
const VERBS = { create: 'created', patch: 'patched', delete: 'deleted' } as const;

/** The Event API's limit on a message. */
const MESSAGE_LIMIT = 1024;

type Written = { readonly type: keyof typeof REASONS; readonly entry: string };

/** `what` over the entries, whole entries only, within the limit: `created 3 objects: a; b; … and 1 more`. */
const listed = (verb: string, entries: ReadonlyArray<string>): string => {
  if (entries.length === 1) return `${verb} ${entries[0]}`.slice(0, MESSAGE_LIMIT);
  const head = `${verb} ${entries.length} objects: `;
  let message = head;
  for (const [index, entry] of entries.entries()) {
    const rest = entries.length - index - 1;
    const next = `${message === head ? '' : '; '}${entry}`;
    const tail = rest > 0 ? `; … and ${rest} more` : '';
    if ((message + next + tail).length > MESSAGE_LIMIT)
      return `${message}${message === head ? '' : '; '}… and ${entries.length - index} more`;
    message += next;
  }
  return message;
};

/**
 * One Event per kind of write a reconcile did (created, patched, deleted), naming every object,
 * and one for a failure: a fresh Application with many children costs the API server one Event
 * write, not one per child (client-go's recorder aggregates similar Events for the same reason).
 */
const notesOf = (result: Exclude<ReconcileResult, { _tag: 'Gone' }>): ReadonlyArray<Note> => {
  const written: ReadonlyArray<Written> = (result.execution?.done ?? []).flatMap(({ action }) =>
    action.type === 'create' || action.type === 'patch' || action.type === 'delete'
      ? [
          {
            type: action.type,
            entry: `${showRef(action.ref)}${action.changes.length ? `: ${action.changes.map((c) => c.path).join(', ')}` : ''}`,
          },
        ]
      : [],
  );
  // Object.keys answers string[]; REASONS is a literal object whose keys are exactly these.
  const done = (Object.keys(REASONS) as ReadonlyArray<keyof typeof REASONS>).flatMap((type) => {
    const entries = written.filter((write) => write.type === type).map((write) => write.entry);
    return entries.length === 0
      ? []
      : [{ reason: REASONS[type], message: listed(VERBS[type], entries), type: 'Normal' as const }];
  });
  return result._tag === 'Failed'
    ? [
        ...done,
        {
          reason: result.terminal ? 'ReconcileStalled' : 'ReconcileFailed',
          message: showClusterError(result.error),
          type: 'Warning',
        },
      ]
    : [
        ...done,
        ...statusNotes(result),
        ...(result.notes ?? []).map((note) => ({
          reason: note.reason,
          message: note.message.slice(0, MESSAGE_LIMIT),
          type: 'Warning' as const,
        })),
      ];
};

/** The stalls announced by an Event of their own reason: a guard denial, a value the API server does not keep. */
const ANNOUNCED_STALLS: ReadonlySet<string> = new Set(['GuardDenied', 'PerpetualDiff']);

/**
 * Drift reported (`spec.driftPolicy: Report`), fields left to their controllers, guard denials and perpetual diffs,
 * announced when the status that
 * records them was written (a change), not at every reconcile that finds them again.
 */
const statusNotes = (result: Extract<ReconcileResult, { _tag: 'Done' }>): ReadonlyArray<Note> => {
  if (!result.statusWritten) return [];
  const drift = result.status.drift ?? [];
  const contested = result.status.contestedFields ?? [];
  const stalled = result.status.conditions?.find((condition) => condition.type === 'Stalled');
  return [
    ...(drift.length === 0
      ? []
      : [
          {
            reason: 'DriftReported',
            message: listed(
              'drift left in place (driftPolicy Report)',
              drift.map(
                (entry) =>
                  `${entry.resource.kind} ${entry.resource.namespace ?? ''}/${entry.resource.name}: ${entry.path}`,
              ),
            ),
            type: 'Warning' as const,
          },
        ]),
    ...(contested.length === 0
      ? []
      : [
          {
            reason: 'FieldsContested',
            message: listed(
              'observed fields left to the controllers that own them (docs/field-owners.md)',
              contested.map(
                (field) =>
                  `${field.resource.kind} ${field.resource.namespace ?? ''}/${field.resource.name}: ${field.path} (${field.controller})`,
              ),
            ),
            type: 'Warning' as const,
          },
        ]),
    ...(stalled?.status === 'True' && ANNOUNCED_STALLS.has(stalled.reason)
      ? [{ reason: stalled.reason, message: stalled.message, type: 'Warning' as const }]
      : []),
  ];
};

/**
 * Whether a result may have anything to announce: writes done, a failure, or a status written (drift
 * reported, a guard denial). False for an in-sync reconcile (every one of a resync): no Event work at all.
 */
export const mayAnnounce = (result: Exclude<ReconcileResult, { _tag: 'Gone' }>): boolean =>
  result._tag === 'Failed' ||
  result.statusWritten ||
  (result.execution?.done.length ?? 0) > 0 ||
  (result.notes?.length ?? 0) > 0;

/**
 * The Events recorded so far by (object, type, reason, message), as client-go's EventCorrelator keeps
 * them: an Event seen again is counted on the one already written (its `count` and `lastTimestamp`
 * patched), never written anew. Bounded: the least recently seen are forgotten first (client-go keeps
 * 4 096); a forgotten or expired Event (the API server keeps them an hour) is created again.
 * The caller owns it (one per controller): no module state.
 */
export class EventCorrelator {
  private readonly seen = new Map<string, SeenEvent>();

  constructor(private readonly limit = 4096) {}

  /** The Event written for `key`, now the most recently seen. */
  take(key: string): SeenEvent | undefined {
    const found = this.seen.get(key);
    if (found === undefined) return undefined;
    this.seen.delete(key);
    this.seen.set(key, found);
    return found;
  }

  remember(key: string, event: SeenEvent): void {
    this.seen.delete(key);
    this.seen.set(key, event);
    if (this.seen.size > this.limit) {
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
  }

  forget(key: string, name: string): void {
    if (this.seen.get(key)?.name === name) this.seen.delete(key);
  }

  get size(): number {
    return this.seen.size;
  }
}

/** An Event written: its name and namespace, and how many times it was recorded. */
export type SeenEvent = { readonly name: string; readonly namespace: string; readonly count: number };

/** What makes two Events the same one (client-go's `getEventKey`, without the source it always shares). */
const correlationKey = (event: Resource): string =>
  JSON.stringify([
    getIn(event, ['involvedObject', 'uid']) ?? '',
    getIn(event, ['involvedObject', 'namespace']),
    getIn(event, ['involvedObject', 'name']),
    getIn(event, ['type']),
    getIn(event, ['reason']),
    getIn(event, ['message']),
  ]);

/**
 * Records one `v1 Event` per note, all at once; answers the errors (Events are best-effort). An
 * Event the correlator has seen is counted on the existing one instead (one Event per object,
 * reason and message, as client-go aggregates). The Events are built before anything is sent, so
 * nothing of `result` is held while they wait for the API server (behind a reconcile's own requests
 * when `cluster` is a low-priority view).
 */
export const recordEvents = (
  cluster: Cluster,
  application: Resource,
  result: Exclude<ReconcileResult, { _tag: 'Gone' }>,
  now: number,
  random: () => number,
  correlator: EventCorrelator = new EventCorrelator(),
): Promise<ReadonlyArray<ClusterError>> => sendEvents(cluster, eventsOf(application, result, now, random), correlator);

/** The Events a result announces, ready to create (random names, as client-go's `<object>.<hex>`). */
const eventsOf = (
  application: Resource,
  result: Exclude<ReconcileResult, { _tag: 'Gone' }>,
  now: number,
  random: () => number,
): ReadonlyArray<Resource> => {
  const time = new Date(now).toISOString();
  const namespace = application.metadata.namespace ?? 'default';
  return notesOf(result).map((note) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${application.metadata.name}.${Math.floor(random() * 2 ** 48).toString(16)}`, namespace },
    involvedObject: {
      apiVersion: application.apiVersion,
      kind: application.kind,
      name: application.metadata.name,
      namespace,
      ...(application.metadata.uid ? { uid: application.metadata.uid } : {}),
    },
    reason: note.reason,
    message: note.message.slice(0, MESSAGE_LIMIT),
    type: note.type,
    source: { component: 'kreconcile' },
    reportingComponent: 'kreconcile.io/controller',
    reportingInstance: 'kreconcile',
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  }));
};

/**
 * Sends every Event at once (each waits for flow control on its own); answers the failures. The
 * correlator is updated before anything is sent, so an Event recorded again while the first write is
 * in flight is counted on it, not created twice.
 */
const sendEvents = async (
  cluster: Cluster,
  events: ReadonlyArray<Resource>,
  correlator: EventCorrelator,
): Promise<ReadonlyArray<ClusterError>> =>
  (await Promise.all(events.map((event) => sendEvent(cluster, event, correlator)))).flatMap((sent) =>
    E.isLeft(sent) ? [sent.left] : [],
  );

/** Creates `event`, or counts it on the Event already written for it (created again when that one is gone). */
const sendEvent = async (
  cluster: Cluster,
  event: Resource,
  correlator: EventCorrelator,
): Promise<E.Either<ClusterError, Resource>> => {
  const key = correlationKey(event);
  const seen = correlator.take(key);
  if (seen === undefined) return createEvent(cluster, event, key, correlator);
  const count = seen.count + 1;
  correlator.remember(key, { ...seen, count });
  const ref = { apiVersion: 'v1', kind: 'Event', namespace: seen.namespace, name: seen.name };
  const body = {
    count,
    lastTimestamp: getIn(event, ['lastTimestamp']) ?? null,
    message: getIn(event, ['message']) ?? '',
  };
  const patched = await cluster.patch(ref, { type: 'merge', body })();
  if (E.isRight(patched) || patched.left._tag !== 'NotFound') return patched;
  correlator.forget(key, seen.name);
  return createEvent(cluster, event, key, correlator);
};

const createEvent = async (
  cluster: Cluster,
  event: Resource,
  key: string,
  correlator: EventCorrelator,
): Promise<E.Either<ClusterError, Resource>> => {
  const { name, namespace = 'default' } = event.metadata;
  correlator.remember(key, { name, namespace, count: 1 });
  const created = await cluster.create(event)();
  if (E.isLeft(created)) correlator.forget(key, name);
  return created;
};

/**
 * The `reason` label of `kreconcile_events_dropped_total` for an Event not recorded: `QueueFull` when
 * client flow control refused it unsent (its low-priority queue full: the server's own 429 has code 429),
 * else the error's tag.
 */
export const droppedReason = (error: ClusterError): string =>
  error._tag === 'TooManyRequests' && error.code === 0 ? 'QueueFull' : error._tag;
