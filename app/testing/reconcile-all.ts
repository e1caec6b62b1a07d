/** kreconcile's own reconcile pass for the test kit: every Application in the cluster, once. */
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import * as E from 'fp-ts/lib/Either.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  ApplicationStatus,
  builtinScopes,
  conditionOf,
  isJsonObject,
  type Cluster,
  type PlanOptions,
  type Resource,
  type ScopeTable,
} from '../../core/internal.js';
import { reconcileApplication, type ReconcileResult } from '../reconcile/reconcile-application.js';
import type { ManualClock } from '../../adapters/memory/clock/manual-clock.js';
import { readStoredStatus } from '../status/stored-status.js';

/**
 * Like the runtime, which does not requeue an Application stalled by a terminal error until it
 * changes: a Stalled condition (reason other than HotLoop) for the current generation is skipped.
 */
const stalledForGood = (object: Resource): boolean => {
  const status = ApplicationStatus.decode(
    isJsonObject(object.status) ? readStoredStatus(object.status) : object.status,
  );
  const stalled = E.isRight(status) ? conditionOf(status.right.conditions, 'Stalled') : undefined;
  return (
    stalled?.status === 'True' &&
    stalled.observedGeneration === object.metadata.generation &&
    object.metadata.deletionTimestamp === undefined
  );
};

/** Reconciles every Application once (direct reads, no cache); returns each result. */
export const reconcileAllApplications = async (
  cluster: Cluster,
  clock: ManualClock,
  scopes: ScopeTable = builtinScopes,
  planOptions?: PlanOptions,
): Promise<ReadonlyArray<ReconcileResult>> => {
  const listed = await cluster.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND })();
  if (E.isLeft(listed)) throw new Error(`cannot list Applications: ${listed.left.message}`);
  const results: ReconcileResult[] = [];
  for (const application of listed.right.items) {
    if (stalledForGood(application)) continue;
    const ref = {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      name: application.metadata.name,
      namespace: application.metadata.namespace ?? 'default',
    };
    results.push(
      await reconcileApplication(ref, {
        cluster,
        scopes,
        now: () => new Date(clock.now()).toISOString(),
        random: () => 0.5,
        // As the Controller: spec.readiness rules in CEL unless the caller names another evaluator.
        planOptions: { expressions: celEvaluator, ...planOptions },
      }),
    );
  }
  return results;
};
