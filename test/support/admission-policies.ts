/**
 * kreconcile's admission policies installed for one test: under a name of the test's own, bound
 * to its namespaces only (they are cluster-scoped: another suite's namespaces stay untouched).
 */
import type { Cluster, Resource } from '../../core/internal.js';
import { ADMISSION_API, denyBinding } from '../../app/manifests/admission-binding.js';
import { must } from './kubernetes-env.js';

/**
 * Creates `policy` (named by the caller) and a binding of the same name that enforces it in
 * `namespace` only; resolves with the function that deletes both.
 */
export const installScopedPolicy = async (
  cluster: Cluster,
  policy: Resource,
  namespace: string,
): Promise<() => Promise<void>> => {
  const name = policy.metadata.name;
  await must(cluster.create(policy));
  await must(cluster.create(denyBinding(name, name, { 'kubernetes.io/metadata.name': namespace })));
  return async () => {
    await cluster.delete({ apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicyBinding', name })();
    await cluster.delete({ apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicy', name })();
  };
};
