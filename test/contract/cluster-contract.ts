/**
 * The Cluster contract: one suite of API-server behaviours written only against the ports, run
 * against every backend (the memory adapter always, the Kubernetes adapter on a real
 * kube-apiserver) so the fake cannot drift from reality. Tests assert the state of the world.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { crudContract } from './contract-crud.js';
import { defaultingContract } from './contract-defaulting.js';
import { deletionContract } from './contract-deletion.js';
import { immutableContract } from './contract-immutable.js';
import { keyOrderContract } from './contract-key-order.js';
import { metadataContract } from './contract-metadata.js';
import { patchContract } from './contract-patches.js';
import { selectorContract } from './contract-selectors.js';
import { statusContract } from './contract-status.js';
import { strictFieldsContract } from './contract-strict-fields.js';
import { typesContract } from './contract-types.js';
import { ensureServed, widgetCrd, type ContractEnv } from './contract-support.js';
import { watchContract } from './contract-watch.js';
import { wholeObjectContract } from './contract-whole-objects.js';

export type { ContractEnv } from './contract-support.js';

/**
 * Registers the suite. `setup` gives a cluster and a fresh existing namespace; the suite then
 * registers its own CRD (`widgets.contract.kreconcile.io`) and waits until it is served.
 */
export const describeClusterContract = (name: string, setup: () => Promise<ContractEnv>): void => {
  describe(`Cluster contract: ${name}`, () => {
    let current: ContractEnv | undefined;
    const env = (): ContractEnv => {
      if (current === undefined) throw new Error('the contract environment was not set up');
      return current;
    };
    beforeAll(async () => {
      current = await setup();
      await ensureServed(current.cluster, widgetCrd, current.namespace);
    }, 180_000);
    afterAll(async () => {
      await current?.cleanup();
    });

    describe('reading and writing', () => crudContract(env));
    describe('metadata rules', () => metadataContract(env));
    describe('label selectors', () => selectorContract(env));
    describe('patches', () => patchContract(env));
    describe('status subresource and custom resource schema', () => statusContract(env));
    describe('server defaulting', () => defaultingContract(env));
    describe('whole objects as the server stores them', () => wholeObjectContract(env));
    describe('key order as the server encodes it (Go maps sorted)', () => keyOrderContract(env));
    describe('immutable fields', () => immutableContract(env));
    describe('wrong-typed fields of built-in kinds', () => typesContract(env));
    describe('strict field validation', () => strictFieldsContract(env));
    describe('deletion: finalizers, garbage collection, namespaces, CRDs', () => deletionContract(env));
    describe('watch', () => watchContract(env));
  });
};
