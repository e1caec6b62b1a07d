/**
 * The immutable-field scenario (test/support/immutable-scenario.ts) on the in-memory API server, and recreation of an
 * object held by a finalizer.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../adapters/memory/index.js';
import { reconcileApplication } from '../../app/reconcile/reconcile-application.js';
import { builtinScopes, getIn, RECREATE_ANNOTATION, type Resource } from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
  reconcileUntilQuiet,
} from '../support/e2e-application.js';
import { must } from '../support/kubernetes-env.js';
import { immutableFieldScenario } from '../support/immutable-scenario.js';

describe('immutable fields on the memory API server', () => {
  it('an immutable change stalls ImmutableField naming the field; with recreate it converges', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 5 });
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    await immutableFieldScenario(
      {
        cluster,
        scopes: builtinScopes,
        now: () => new Date(clock.now()).toISOString(),
        random: () => 0.5,
        planOptions: { readiness: 'existence' },
      },
      'shop',
    );
  });
});

describe('recreate of an object held by a finalizer', () => {
  it('deletes it, waits while it terminates, and creates it once it is gone', async () => {
    const clock = new ManualClock();
    const cluster = createMemoryCluster({ clock, seed: 6 });
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    const deps = {
      cluster,
      scopes: builtinScopes,
      now: () => new Date(clock.now()).toISOString(),
      random: () => 0.5,
      planOptions: { readiness: 'existence' as const },
    };
    const service = (clusterIP: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', annotations: { [RECREATE_ANNOTATION]: 'true' } },
        spec: { clusterIP, ports: [{ port: 80 }] },
      }) as unknown as Resource;
    const ref = applicationRef('shop', 'svc');
    const serviceRef = { apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'web' };
    await must(cluster.create(applicationObject('shop', 'svc', [service('10.96.0.10')])));
    await reconcileUntilQuiet(ref, deps);
    const first = await readExisting(cluster, serviceRef);
    // Another controller holds the Service with a finalizer.
    await must(cluster.patch(serviceRef, { type: 'merge', body: { metadata: { finalizers: ['example.com/hold'] } } }));
    await must(cluster.patch(ref, { type: 'merge', body: { spec: { manifest: [service('10.96.0.20')] } } }));
    const deleting = await reconcileApplication(ref, deps);
    expect(deleting._tag === 'Done' && deleting.plan.actions.map((a) => a.type)).toEqual(['recreate']);
    expect((await readExisting(cluster, serviceRef)).metadata.deletionTimestamp).toBeDefined();
    const waiting = await reconcileApplication(ref, deps);
    expect(waiting._tag === 'Done' && waiting.plan.actions).toEqual([]);
    expect(conditionOf(await readApplication(cluster, ref), 'Reconciling')?.reason).toBe('WaitingForDeletion');
    await must(cluster.patch(serviceRef, { type: 'merge', body: { metadata: { finalizers: null } } }));
    await reconcileUntilQuiet(ref, deps);
    const recreated = await readExisting(cluster, serviceRef);
    expect(recreated.metadata.uid).not.toBe(first.metadata.uid);
    expect(getIn(recreated, ['spec', 'clusterIP'])).toBe('10.96.0.20');
    expectReady(await readApplication(cluster, ref));
  });
});
