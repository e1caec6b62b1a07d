/** The embedded default: an in-memory API server seeded with the CRDs, namespaces and Applications given. */
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryCluster, systemClock, type MemoryCluster } from '../../../adapters/memory/index.js';
import { showClusterError, type Application, type Resource } from '../../../core/internal.js';
import { applicationCrd } from '../../manifests/crd.js';
import { loadStartingObjects } from './starting-objects.js';

/**
 * Starts an in-memory cluster holding the Application CRD, the given CRDs, starting objects (any
 * kind: operate/starting-objects.ts) and Applications. Errors: every object that could not be loaded, one per line.
 */
export const startEmbeddedCluster = async (args: {
  readonly crds: ReadonlyArray<Resource>;
  readonly applications: ReadonlyArray<Application>;
  readonly objects?: ReadonlyArray<Resource>;
  readonly defaultNamespace?: string;
}): Promise<E.Either<string, MemoryCluster>> => {
  // Workload status without Pods or ReplicaSets, as `serve` and `run --memory` have always shown: what
  // kubectl prints then matches a control plane without kube-controller-manager's workload controllers
  // (the kubectl session differential); the kit turns Pods on for controllers that read them.
  const cluster = createMemoryCluster({ clock: systemClock, seed: 1, workloads: true, pods: false });
  for (const crd of [applicationCrd(), ...args.crds]) {
    const created = await cluster.create(crd)();
    if (E.isLeft(created) && created.left._tag !== 'AlreadyExists')
      return E.left(`cannot install ${crd.metadata.name}: ${showClusterError(created.left)}`);
  }
  await cluster.settle();
  const failed = await loadStartingObjects(cluster, args.objects ?? [], args.defaultNamespace ?? 'default');
  if (failed.length > 0) return E.left(failed.join('\n'));
  const namespaces = new Set(args.applications.map((a) => a.metadata.namespace ?? 'default'));
  for (const name of namespaces) {
    const created = await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })();
    if (E.isLeft(created) && created.left._tag !== 'AlreadyExists')
      return E.left(`cannot create namespace ${name}: ${showClusterError(created.left)}`);
  }
  for (const application of args.applications) {
    const { status: _status, ...rest } = application;
    const {
      uid: _uid,
      resourceVersion: _rv,
      generation: _gen,
      creationTimestamp: _ct,
      ...metadata
    } = application.metadata;
    const created = await cluster.create({
      ...rest,
      metadata: { ...metadata, namespace: application.metadata.namespace ?? 'default' },
    })();
    if (E.isLeft(created))
      return E.left(`cannot create Application ${application.metadata.name}: ${showClusterError(created.left)}`);
  }
  return E.right(cluster);
};
