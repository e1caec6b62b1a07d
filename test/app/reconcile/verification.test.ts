/**
 * The verification made from the writes' answers: a reconcile that acted plans again against what
 * the API server answered; when that needs nothing more, its status is the one written (once) and
 * no VerifyActions requeue follows — and it is exactly what the next reconcile would have computed.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import {
  converged,
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  type PlanOptions,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf, type Child } from '../model/world.js';
import { withReadableStatus } from '../../../app/status/stored-status.js';

const ref = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'shop' };

const setup = (
  planOptions: PlanOptions,
): { readonly cluster: MemoryCluster; readonly deps: ReconcileDeps; readonly statusWrites: () => number } => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 3 });
  let writes = 0;
  const counting = {
    ...cluster,
    patchStatus: (...args: Parameters<MemoryCluster['patchStatus']>) => {
      writes++;
      return cluster.patchStatus(...args);
    },
  };
  const deps: ReconcileDeps = {
    cluster: counting,
    scopes: builtinScopes,
    now: () => new Date(clock.now()).toISOString(),
    random: () => 0.5,
    planOptions,
  };
  return { cluster, deps, statusWrites: () => writes };
};

const storedStatus = async (cluster: MemoryCluster): Promise<unknown> => {
  const read = await cluster.get(ref)();
  if (E.isLeft(read) || O.isNone(read.right)) throw new Error('the Application is gone');
  // The lists as the operator computed them (stored packed: app/status/stored-status.ts).
  return withReadableStatus(read.right.value).status;
};

const done = (result: ReconcileResult): Extract<ReconcileResult, { _tag: 'Done' }> => {
  if (result._tag !== 'Done') throw new Error(`expected Done, got ${JSON.stringify(result)}`);
  return result;
};

const shop = (children: ReadonlyArray<Child>): Resource =>
  applicationOf({ namespace: 'default', name: 'shop', children });

const config: Child = { kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } };
const web: Child = { kind: 'Service', name: 'shop-web', port: 80 };
const deployment: Child = { kind: 'Deployment', name: 'shop-app', replicas: 2, image: 'nginx:1.27' };

describe('verifying an acting plan from the answers of its writes', () => {
  it('creates (the new kinds recorded first), writes Ready once and needs no requeue; the next reconcile plans nothing and writes nothing', async () => {
    const { cluster, deps, statusWrites } = setup({ readiness: 'existence' });
    await cluster.create(shop([config, web]))();
    const first = done(await reconcileApplication(ref, deps));
    expect(first.plan.actions.map((action) => action.type)).toEqual(['addFinalizer', 'create', 'create']);
    expect(first.verified).toBe(true);
    expect(first.requeueAfterMs).toBeUndefined();
    expect(converged(first)).toBe(true);
    // One status write, the verified status with Ready: the new kinds were recorded by the
    // finalizer's patch (so a process that dies before the status write leaves no child of an
    // unrecorded kind), not by a status write of their own.
    expect(statusWrites()).toBe(1);
    expect(await storedStatus(cluster)).toEqual(first.status);
    expect(first.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    const second = done(await reconcileApplication(ref, deps));
    expect(second.plan.actions).toEqual([]);
    expect(second.statusWritten).toBe(false);
    expect(second.status).toEqual(first.status);
    expect(statusWrites()).toBe(1);
  });

  it('a child not ready yet: the status says so and the readiness requeue replaces the verification one', async () => {
    const { cluster, deps } = setup({ readiness: 'kstatus', readinessRequeueMs: 5_000 });
    await cluster.create(shop([deployment]))();
    const first = done(await reconcileApplication(ref, deps));
    expect(first.verified).toBe(true);
    expect(first.requeueAfterMs).toBe(5_000);
    expect(converged(first)).toBe(false);
    expect(first.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    const second = done(await reconcileApplication(ref, deps));
    expect(second.plan.actions).toEqual([]);
    expect(second.statusWritten).toBe(false);
  });

  it('a spec edited while the plan runs: the status claims only the generation that was planned', async () => {
    const { cluster, deps } = setup({ readiness: 'existence' });
    await cluster.create(shop([config]))();
    // Another actor edits the spec just before the finalizer lands: the answer shows generation 2.
    const patch: MemoryCluster['patch'] = (target, body, options) => async () => {
      if (target.kind === APPLICATION_KIND) {
        const read = await cluster.get(ref)();
        if (E.isLeft(read) || O.isNone(read.right)) throw new Error('the Application is gone');
        const updated = await cluster.update({
          ...shop([config, web]),
          metadata: read.right.value.metadata,
        })();
        if (E.isLeft(updated)) throw new Error(updated.left.message);
      }
      return cluster.patch(target, body, options)();
    };
    const first = done(await reconcileApplication(ref, { ...deps, cluster: { ...deps.cluster, patch } }));
    expect(first.verified).toBe(true);
    expect(first.status.observedGeneration).toBe(1);
    expect(first.status.conditions?.every((condition) => condition.observedGeneration === 1)).toBe(true);
    const next = done(await reconcileApplication(ref, deps));
    expect(next.plan.actions.map((action) => action.type)).toEqual(['create']);
    expect(next.status.observedGeneration).toBe(2);
  });

  it('a plan that deletes is verified by the requeue, as planned', async () => {
    const { cluster, deps } = setup({ readiness: 'existence' });
    await cluster.create(shop([config, web]))();
    done(await reconcileApplication(ref, deps));
    const read = await cluster.get(ref)();
    if (E.isLeft(read) || O.isNone(read.right)) throw new Error('the Application is gone');
    const { resourceVersion: _rv, ...metadata } = read.right.value.metadata;
    await cluster.update({ ...shop([config]), metadata: { ...read.right.value.metadata, ...metadata } })();
    const pruning = done(await reconcileApplication(ref, deps));
    expect(pruning.plan.actions.map((action) => action.type)).toEqual(['delete']);
    expect(pruning.verified).toBeUndefined();
    expect(pruning.requeueAfterMs).toBe(pruning.plan.outcome._tag === 'RequeueAfter' ? pruning.plan.outcome.ms : -1);
    expect(converged(pruning)).toBe(false);
    expect(converged(done(await reconcileApplication(ref, deps)))).toBe(true);
  });
});
