/**
 * The immutable-field scenario, run on any cluster (the memory API server in unit tests, a real
 * kube-apiserver in e2e): a Deployment's selector and a Job's pod template change in the spec;
 * without opting in the Application stalls `ImmutableField` naming the field, and with
 * `kreconcile.io/recreate: "true"` both are deleted and created anew, and the Application is Ready.
 */
import { expect } from 'vitest';
import { reconcileApplication, type ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import { getIn, RECREATE_ANNOTATION, type ObjectRef, type Resource } from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  conditionOf,
  expectReady,
  readApplication,
  readExisting,
  reconcileUntilQuiet,
} from './e2e-application.js';
import { must } from './kubernetes-env.js';

type Version = { readonly app: string; readonly image: string; readonly recreate: boolean };

const manifest = ({ app, image, recreate }: Version): ReadonlyArray<Resource> => {
  const annotations = recreate ? { annotations: { [RECREATE_ANNOTATION]: 'true' } } : {};
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', ...annotations },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app } },
        template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'web', image: 'busybox:1.36' }] } },
      },
    },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', ...annotations },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image }] } } },
    },
  ] as ReadonlyArray<Resource>;
};

/** Runs the scenario in `namespace` (which exists) through `deps.cluster`. */
export const immutableFieldScenario = async (deps: ReconcileDeps, namespace: string): Promise<void> => {
  const { cluster } = deps;
  const ref = applicationRef(namespace, 'immutable');
  const deployment: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' };
  const job: ObjectRef = { apiVersion: 'batch/v1', kind: 'Job', namespace, name: 'migrate' };
  const respec = async (version: Version): Promise<void> => {
    await must(cluster.patch(ref, { type: 'merge', body: { spec: { manifest: manifest(version) } } }));
  };

  await must(
    cluster.create(
      applicationObject(namespace, 'immutable', manifest({ app: 'v1', image: 'busybox:1.36', recreate: false })),
    ),
  );
  await reconcileUntilQuiet(ref, deps);
  expectReady(await readApplication(cluster, ref));
  const before = { deployment: await readExisting(cluster, deployment), job: await readExisting(cluster, job) };

  // An immutable change without opting in: the server refuses the patch, the Application stalls.
  await respec({ app: 'v2', image: 'busybox:1.37', recreate: false });
  const refused = await reconcileApplication(ref, deps);
  expect(refused._tag).toBe('Failed');
  expect(refused._tag === 'Failed' && refused.terminal).toBe(true);
  const stalled = await readApplication(cluster, ref);
  expect(conditionOf(stalled, 'Stalled')).toMatchObject({
    status: 'True',
    reason: 'ImmutableField',
    observedGeneration: stalled.metadata.generation,
  });
  expect(conditionOf(stalled, 'Stalled')?.message).toBe(
    `patch of apps/v1 Deployment ${namespace}/web failed: spec.selector cannot change once set (the API server refuses the patch): add the annotation kreconcile.io/recreate: "true" to this resource in spec.manifest to delete and recreate it, or restore the value`,
  );
  expect(getIn(await readExisting(cluster, deployment), ['spec', 'selector'])).toEqual({ matchLabels: { app: 'v1' } });

  // Opting in: both are recreated (new uids) with the new values, and the Application is Ready.
  await respec({ app: 'v2', image: 'busybox:1.37', recreate: true });
  const rounds = await reconcileUntilQuiet(ref, deps);
  expect(rounds[0]?.plan.actions.map((action) => `${action.type} ${action.ref.kind}`)).toEqual([
    'recreate Deployment',
    'recreate Job',
  ]);
  expectReady(await readApplication(cluster, ref));
  const after = { deployment: await readExisting(cluster, deployment), job: await readExisting(cluster, job) };
  expect(after.deployment.metadata.uid).not.toBe(before.deployment.metadata.uid);
  expect(after.job.metadata.uid).not.toBe(before.job.metadata.uid);
  expect(getIn(after.deployment, ['spec', 'selector'])).toEqual({ matchLabels: { app: 'v2' } });
  expect(getIn(after.job, ['spec', 'template', 'spec', 'containers', 0, 'image'])).toBe('busybox:1.37');
};
