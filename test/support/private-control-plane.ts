/**
 * A control plane of one test file's own, for controllers the shared one does not run because they
 * would change what every other suite sees (the Deployment controller adds ReplicaSets, Pods and a
 * revision annotation; the HPA controller scales whatever an HPA targets). Started in `beforeAll`
 * of a `describeWithApiServer` body, so it exists only where the real API server suites run.
 */
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { findBinaries } from '../../tools/envtest/binaries.js';
import { startControlPlane, type ControlPlane } from '../../tools/envtest/control-plane.js';
import { installCrds } from '../../tools/envtest/install-crds.js';
import type { KubernetesTestEnv } from './kubernetes-env.js';
import { suiteCrds } from './test-crds.js';

export type PrivatePlane = {
  readonly env: Extract<KubernetesTestEnv, { available: true }>;
  readonly stop: () => Promise<void>;
};

/** etcd, kube-apiserver and kube-controller-manager with `extraControllers` beside the default ones. */
export const startPrivateControlPlane = async (extraControllers: ReadonlyArray<string>): Promise<PrivatePlane> => {
  const lookup = findBinaries();
  if (!lookup.found) throw new Error(`a private control plane needs the binaries: ${lookup.reason}`);
  if (lookup.binaries.kubeControllerManager === undefined)
    throw new Error('a private control plane with controllers needs kube-controller-manager: run npm run k8s:build');
  const plane: ControlPlane = await startControlPlane({
    binaries: lookup.binaries,
    extraControllers,
    beforeControllers: ({ kubeconfigPath }) => installCrds(createKubernetesCluster({ kubeconfigPath }), suiteCrds),
  });
  return {
    env: { available: true, kubeconfigPath: plane.kubeconfigPath, existingCluster: false, controllerManager: true },
    stop: () => plane.stop(),
  };
};
