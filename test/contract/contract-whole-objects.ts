/**
 * Contract: whole objects. For each manifest, the stored object — every default, allocation
 * and initial status — must equal what kube-apiserver stores (captured fixtures), once the
 * values a server assigns freshly are normalised away.
 */
import { expect, it } from 'vitest';
import { must, type ContractEnv } from './contract-support.js';
import { expectedObjects } from './whole-object-expected.js';
import { manifests } from './whole-object-manifests.js';
import { normalize } from './whole-object-normalize.js';

export const wholeObjectContract = (env: () => ContractEnv): void => {
  for (const [name, manifest] of Object.entries(manifests)) {
    it(`${name}: stored exactly as kube-apiserver stores it`, async () => {
      const { cluster, namespace } = env();
      const created = await must(cluster.create(manifest(namespace)));
      expect(normalize(created, namespace)).toEqual(expectedObjects[name]);
    });
  }
};
