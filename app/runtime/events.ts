/** Kubernetes Events for what a reconcile did (created/patched/deleted) and for failures. */
import * as E from 'fp-ts/lib/Either.js';
import { showClusterError, showRef, type Cluster, type ClusterError, type Resource } from '../../core/index.js';
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
    : [...done, ...statusNotes(result)];
};

/**
 * Drift reported (`spec.driftPolicy: Report`) and guard denials, announced when the status that
 * records them was written (a change), not at every reconcile that finds them again.
 */
const statusNotes = (result: Extract<ReconcileResult, { _tag: 'Done' }>): ReadonlyArray<Note> => {
  if (!result.statusWritten) return [];
  const drift = result.status.drift ?? [];
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
    ...(stalled?.status === 'True' && stalled.reason === 'GuardDenied'
      ? [{ reason: 'GuardDenied', message: stalled.message, type: 'Warning' as const }]
      : []),
  ];
};

/**
 * Whether a result may have anything to announce: writes done, a failure, or a status written (drift
 * reported, a guard denial). False for an in-sync reconcile (every one of a resync): no Event work at all.
 */
export const mayAnnounce = (result: Exclude<ReconcileResult, { _tag: 'Gone' }>): boolean =>
  result._tag === 'Failed' || result.statusWritten || (result.execution?.done.length ?? 0) > 0;

/**
 * Creates one `v1 Event` per note, all at once; answers the errors (Events are best-effort).
 * The Events are built before anything is sent, so nothing of `result` is held while they wait
 * for the API server (behind a reconcile's own requests when `cluster` is a low-priority view).
 */
export const recordEvents = (
  cluster: Cluster,
  application: Resource,
  result: Exclude<ReconcileResult, { _tag: 'Gone' }>,
  now: number,
  random: () => number,
): Promise<ReadonlyArray<ClusterError>> => createEvents(cluster, eventsOf(application, result, now, random));

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

/** Sends every Event at once (each waits for flow control on its own); answers the failures. */
const createEvents = async (cluster: Cluster, events: ReadonlyArray<Resource>): Promise<ReadonlyArray<ClusterError>> =>
  (await Promise.all(events.map((event) => cluster.create(event)()))).flatMap((created) =>
    E.isLeft(created) ? [created.left] : [],
  );

/**
 * The `reason` label of `kreconcile_events_dropped_total` for an Event not recorded: `QueueFull` when
 * client flow control refused it unsent (its low-priority queue full: the server's own 429 has code 429),
 * else the error's tag.
 */
export const droppedReason = (error: ClusterError): string =>
  error._tag === 'TooManyRequests' && error.code === 0 ? 'QueueFull' : error._tag;
