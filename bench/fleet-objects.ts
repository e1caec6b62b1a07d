/**
 * The objects of `npm run bench:fleet`, one generator for every contender (kreconcile's
 * Applications, the direct creates, the Flux peer's objects file): all three apply identical objects.
 *
 * - `flux`: the Flux benchmark's shape, 4 objects per Application: Deployment, Service,
 *   ServiceAccount, ConfigMap. The Deployment has `replicas: 0`: the test control plane has no
 *   kubelet (no Pod ever runs), and with 0 replicas the deployment and replicaset controllers still
 *   write the status that kstatus reads (observedGeneration, Available, Progressing
 *   NewReplicaSetAvailable), so "ready" means what it means on a cluster, minus the Pods. The Service
 *   is headless: the test apiserver has a /24 of Service IPs, 1 000 Services would not fit.
 * - `argo`: Argo CD's fleet benchmark shape, one ConfigMap of 2 KB per Application.
 */
import type { Resource } from '../core/internal.js';
import { configMapSpec, deploymentSpec, serviceSpec } from './fixtures.js';

export type Shape = 'flux' | 'argo';

/**
 * What the test control plane's kube-controller-manager runs beyond its default set for the fleet
 * benchmarks (`bench:fleet`, `bench/request-log.ts`): a Deployment's status, which readiness reads.
 */
export const FLEET_CONTROLLERS: ReadonlyArray<string> = ['deployment-controller', 'replicaset-controller'];

const inNamespace = (resource: Resource, namespace: string): Resource => ({
  ...resource,
  metadata: { ...resource.metadata, namespace },
});

const withoutReplicas = (deployment: Resource): Resource => ({
  ...deployment,
  spec: { ...(deployment.spec as object), replicas: 0 },
});

const headless = (service: Resource): Resource => ({
  ...service,
  spec: { ...(service.spec as object), clusterIP: 'None' },
});

/** 2 KB of data, as Argo CD's benchmark ConfigMap: 32 keys of 6 characters with values of 58 (2 048 bytes). */
const twoKilobytes = (name: string): Record<string, string> =>
  Object.fromEntries(
    Array.from({ length: 32 }, (_, k) => [`key-${String(k).padStart(2, '0')}`, `${name}-`.padEnd(58, 'x')]),
  );

/** The objects of Application `app-<i>` of `shape`, in `namespace`. */
export const applicationObjects = (shape: Shape, i: number, namespace: string): ReadonlyArray<Resource> => {
  const name = `app-${i}`;
  const objects: ReadonlyArray<Resource> =
    shape === 'argo'
      ? [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: name } }, data: twoKilobytes(name) }]
      : [
          withoutReplicas(deploymentSpec(name)),
          headless(serviceSpec(name)),
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, labels: { app: name } } },
          configMapSpec(`${name}-config`),
        ];
  return objects.map((object) => inNamespace(object, namespace));
};

export const objectsPerApplication = (shape: Shape): number => (shape === 'argo' ? 1 : 4);
