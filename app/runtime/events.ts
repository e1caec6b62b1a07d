/** Kubernetes Events for what a reconcile did (created/patched/deleted) and for failures. */
import * as E from 'fp-ts/lib/Either.js';
import { showClusterError, showRef, type Cluster, type ClusterError, type Resource } from '../../core/index.js';
import type { ReconcileResult } from '../reconcile/reconcile-application.js';

type Note = { readonly reason: string; readonly message: string; readonly type: 'Normal' | 'Warning' };

const REASONS = { create: 'Created', patch: 'Patched', delete: 'Deleted' } as const;

const notesOf = (result: Exclude<ReconcileResult, { _tag: 'Gone' }>): ReadonlyArray<Note> => {
  const done = (result.execution?.done ?? []).flatMap(({ action }) => (action.type === 'create' || action.type === 'patch' || action.type === 'delete'
    ? [{ reason: REASONS[action.type], message: `${action.type}d ${showRef(action.ref)}${action.changes.length ? `: ${action.changes.map((c) => c.path).join(', ')}` : ''}`, type: 'Normal' as const }]
    : []));
  return result._tag === 'Failed'
    ? [...done, { reason: result.terminal ? 'ReconcileStalled' : 'ReconcileFailed', message: showClusterError(result.error), type: 'Warning' }]
    : done;
};

/** Creates one `v1 Event` per note; returns the errors (events are best-effort). */
export const recordEvents = async (cluster: Cluster, application: Resource, result: Exclude<ReconcileResult, { _tag: 'Gone' }>, now: number, random: () => number): Promise<ReadonlyArray<ClusterError>> => {
  const time = new Date(now).toISOString();
  const namespace = application.metadata.namespace ?? 'default';
  const errors: ClusterError[] = [];
  for (const note of notesOf(result)) {
    const event = {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name: `${application.metadata.name}.${Math.floor(random() * 2 ** 48).toString(16)}`, namespace },
      involvedObject: { apiVersion: application.apiVersion, kind: application.kind, name: application.metadata.name, namespace, ...(application.metadata.uid ? { uid: application.metadata.uid } : {}) },
      reason: note.reason, message: note.message.slice(0, 1024), type: note.type,
      source: { component: 'kreconcile' }, reportingComponent: 'kreconcile.io/controller', reportingInstance: 'kreconcile',
      firstTimestamp: time, lastTimestamp: time, count: 1,
    } as unknown as Resource;
    const created = await cluster.create(event)();
    if (E.isLeft(created)) errors.push(created.left);
  }
  return errors;
};
