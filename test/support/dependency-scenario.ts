/**
 * The dependsOn scenario, run on any cluster (memory API server in unit tests, a real
 * kube-apiserver in e2e): a chain against the kind order — Deployment `db`, then ConfigMap
 * `settings` (depends on db), then Service `web` (depends on settings) — is created one link per
 * reconcile, in chain order, and deleted in reverse when the Application is deleted.
 */
import { expect } from 'vitest';
import type { ReconcileDeps } from '../../app/reconcile/reconcile-application.js';
import { DEPENDS_ON_ANNOTATION, type Resource } from '../../core/internal.js';
import {
  applicationObject,
  applicationRef,
  expectReady,
  readApplication,
  readObject,
  reconcileUntilQuiet,
  type Round,
} from './e2e-application.js';
import { must } from './kubernetes-env.js';

const dependsOn = (target: string) => ({ annotations: { [DEPENDS_ON_ANNOTATION]: target } });

const manifest: ReadonlyArray<Resource> = [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', ...dependsOn('ConfigMap/settings') },
    spec: { selector: { app: 'db' }, ports: [{ port: 80 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', ...dependsOn('apps/Deployment/db') },
    data: { DB: 'db' },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'db' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'busybox:1.36' }] } },
    },
  },
] as ReadonlyArray<Resource>;

/** Per reconcile, the writes it executed (`create Deployment/db`), waits left out. */
const writesPerRound = (
  rounds: ReadonlyArray<Round>,
  type: 'create' | 'delete',
): ReadonlyArray<ReadonlyArray<string>> =>
  rounds
    .map((round) =>
      round.execution.done
        .filter(({ action }) => action.type === type)
        .map(({ action }) => `${action.type} ${action.ref.kind}/${action.ref.name}`),
    )
    .filter((writes) => writes.length > 0);

/** Runs the scenario in `namespace` (which exists) through `deps.cluster`. */
export const dependencyChainScenario = async (deps: ReconcileDeps, namespace: string): Promise<void> => {
  const { cluster } = deps;
  const ref = applicationRef(namespace, 'chain');
  await must(cluster.create(applicationObject(namespace, 'chain', manifest)));

  const created = await reconcileUntilQuiet(ref, deps);
  expect(writesPerRound(created, 'create')).toEqual([
    ['create Deployment/db'],
    ['create ConfigMap/settings'],
    ['create Service/web'],
  ]);
  // What waited said so in the status while it waited.
  expect(created[0]?.after?.status?.conditions?.find((c) => c.type === 'Reconciling')?.message).toContain(
    '1 to create, 0 to patch, 0 to delete, 2 waiting on dependencies',
  );
  expectReady(await readApplication(cluster, ref));

  await must(cluster.delete(ref));
  const deleted = await reconcileUntilQuiet(ref, deps);
  expect(writesPerRound(deleted, 'delete')).toEqual([
    ['delete Service/web'],
    ['delete ConfigMap/settings'],
    ['delete Deployment/db'],
  ]);
  for (const [kind, apiVersion, name] of [
    ['Service', 'v1', 'web'],
    ['ConfigMap', 'v1', 'settings'],
    ['Deployment', 'apps/v1', 'db'],
  ] as const) {
    expect(await readObject(cluster, { apiVersion, kind, namespace, name })).toBeUndefined();
  }
  expect(await readObject(cluster, ref)).toBeUndefined();
};
