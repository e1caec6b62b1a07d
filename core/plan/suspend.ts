/**
 * `spec.suspend: true`: the plan writes nothing (no child, not the finalizer) and the status
 * says so (`Ready=False`, reason `Suspended`); the stored status is otherwise kept, so resuming
 * plans from where it stopped. Deletion is not suspended: deleting the Application is asked for
 * explicitly, and its children would otherwise be left behind with it Terminating.
 */
import type { Application } from '../model/application.js';
import { conditionsFor } from '../status/conditions.js';
import type { Plan } from '../model/plan.js';
import { defined } from '../json/defined.js';

export const SUSPENDED_MESSAGE = 'spec.suspend is true: nothing is written until it is false';

/** Whether the Application is suspended (and not being deleted). */
export const isSuspended = (application: Application): boolean =>
  application.spec?.suspend === true && application.metadata.deletionTimestamp === undefined;

/** The plan of a suspended Application: no actions, the stored status with `Suspended` conditions. */
export const suspendedPlan = (application: Application, now: string): Plan => {
  const stored = application.status ?? {};
  const generation = application.metadata.generation;
  return {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...stored,
      ...defined({ observedGeneration: generation }),
      conditions: conditionsFor({
        verdict: { _tag: 'Suspended', message: SUSPENDED_MESSAGE },
        previous: stored.conditions,
        now,
        generation,
      }),
    },
    outcome: { _tag: 'AwaitChange' },
  };
};
