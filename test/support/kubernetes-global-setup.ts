/**
 * vitest global setup of the real-API-server project: ONE control plane per run (or an
 * existing cluster), CRDs installed before the controller manager starts, the kubeconfig
 * provided to test files. Missing binaries skip the suites, except where a server is required
 * (CI=true or KRECONCILE_REQUIRE_APISERVER=1), where they fail the run.
 */
import type { TestProject } from 'vitest/node';
import { createKubernetesCluster } from '../../adapters/kubernetes/index.js';
import { findBinaries } from '../../tools/envtest/binaries.js';
import { startControlPlane, type ControlPlane } from '../../tools/envtest/control-plane.js';
import { installCrds } from '../../tools/envtest/install-crds.js';
import type { KubernetesTestEnv } from './kubernetes-env.js';
import { suiteCrds as crds } from './test-crds.js';

const truthy = (value: string | undefined): boolean =>
  value !== undefined && ['1', 'true', 'yes'].includes(value.toLowerCase());

export const apiServerRequired = (env: NodeJS.ProcessEnv = process.env): boolean =>
  truthy(env.CI) || truthy(env.KRECONCILE_REQUIRE_APISERVER);

const existingCluster = async (project: TestProject): Promise<void> => {
  const kubeconfigPath = process.env.KUBECONFIG?.split(':')[0];
  if (!kubeconfigPath) throw new Error('KRECONCILE_USE_EXISTING_CLUSTER=1 needs KUBECONFIG to name a kubeconfig file');
  await installCrds(createKubernetesCluster({ kubeconfigPath }), crds);
  const env: KubernetesTestEnv = { available: true, kubeconfigPath, existingCluster: true, controllerManager: true };
  project.provide('kubernetes', env);
};

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (truthy(process.env.KRECONCILE_USE_EXISTING_CLUSTER)) {
    await existingCluster(project);
    return undefined;
  }
  const lookup = findBinaries();
  if (!lookup.found) {
    if (apiServerRequired())
      throw new Error(`a real API server is required (CI / KRECONCILE_REQUIRE_APISERVER) but ${lookup.reason}`);
    console.warn(`[kubernetes] skipping real-API-server suites: ${lookup.reason}`);
    project.provide('kubernetes', { available: false, reason: lookup.reason });
    return undefined;
  }
  let plane: ControlPlane | undefined;
  try {
    plane = await startControlPlane({
      binaries: lookup.binaries,
      beforeControllers: ({ kubeconfigPath }) => installCrds(createKubernetesCluster({ kubeconfigPath }), crds),
      keepDir: truthy(process.env.KRECONCILE_KEEP_ENVTEST),
    });
  } catch (error) {
    // Binaries that exist but do not start are a real failure, never a skip.
    throw new Error(`[kubernetes] ${(error as Error).message}`, { cause: error });
  }
  console.log(
    `[kubernetes] control plane (${lookup.source}) ready in ${plane.startMs} ms at ${plane.server}; kubeconfig ${plane.kubeconfigPath}`,
  );
  project.provide('kubernetes', {
    available: true,
    kubeconfigPath: plane.kubeconfigPath,
    existingCluster: false,
    controllerManager: plane.withControllerManager,
  });
  const started = plane;
  return async () => {
    const dead = started.deadComponents();
    if (dead.length > 0) console.error(`[kubernetes] ${dead.join(', ')} died during the run:\n${started.logTails(60)}`);
    await started.stop();
  };
}
