/**
 * The callback answers in constant time whether or not its target exists (issue 37): a missing
 * Application, one without the hook and one with it all go through the one verifier, which reads
 * the same hook Secrets and makes the same number of constant-time comparisons on each path.
 * (A statistical timing test would be flaky; the paths' equal work is what is asserted.)
 */
import { describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { verification, verifyAgainstSecrets, type Call } from '../../../app/hooks/callback-server.js';
import type { Application, Cluster, ObjectRef } from '../../../core/internal.js';

const call: Call = { namespace: 'shop', name: 'web', hook: 'complete', method: 'POST', token: 'guess' };

const applicationWith = (hooks: ReadonlyArray<string>): Application =>
  ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { namespace: 'shop', name: 'web', uid: 'u-1' },
    spec: { manifest: [], hooks },
  }) as unknown as Application; // a fixture: the decoder's output shape, built by hand

/** The reads and comparisons one verification costs. */
const costOf = async (application: Application | undefined) => {
  const cluster = createMemoryCluster();
  const reads: ObjectRef[] = [];
  const counting: Cluster = {
    ...cluster,
    get: (ref) => {
      reads.push(ref);
      return cluster.get(ref);
    },
  };
  let comparisons = 0;
  const args = verification(call, application, { cluster: counting });
  const verdict = await verifyAgainstSecrets({
    ...args,
    compare: (a, b) => {
      comparisons += 1;
      return a === b;
    },
  });
  return { verdict, reads, comparisons };
};

describe('hook callbacks: one verifier on every path', () => {
  it('a missing Application, one without the hook and one with it read the same Secrets and compare as often', async () => {
    const missing = await costOf(undefined);
    const withoutHook = await costOf(applicationWith([]));
    const withHook = await costOf(applicationWith(['complete']));
    for (const path of [missing, withoutHook, withHook]) {
      expect(path.verdict).toBe(false);
      expect(path.comparisons).toBe(2);
      expect(path.reads).toEqual(missing.reads);
    }
    expect(missing.reads).toEqual([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: expect.stringContaining('web') as unknown },
    ]);
  });
});
