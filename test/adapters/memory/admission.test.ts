/**
 * The memory server's model of mutating admission (adapters/memory/admission): registered per kind,
 * applied on create and update after defaulting; an update it turns back into the stored object is a
 * no-op write (same resourceVersion, no watch event), as on kube-apiserver.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MutatingAdmission } from '../../../adapters/memory/index.js';
import { withKey, type Resource } from '../../../core/internal.js';

const silverTier: MutatingAdmission = {
  name: 'silver-tier',
  group: '',
  kind: 'ConfigMap',
  mutate: (object) =>
    withKey(object, 'metadata', { ...object.metadata, labels: { ...object.metadata.labels, tier: 'silver' } }),
};

const right = <A>(either: E.Either<unknown, A>): A => {
  if (E.isLeft(either)) throw new Error(JSON.stringify(either.left));
  return either.right;
};

describe('memory server: mutating admission', () => {
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'settings' };
  const configMap: Resource = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'default', labels: { tier: 'gold' } },
  };

  it('rewrites on create and update; an update it undoes keeps the resourceVersion; other kinds pass untouched', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(), admission: [silverTier] });
    const created = right(await cluster.create(configMap)());
    expect(created.metadata.labels).toEqual({ tier: 'silver' });
    const patched = right(
      await cluster.patch(ref, {
        type: 'json',
        operations: [{ op: 'replace', path: '/metadata/labels/tier', value: 'gold' }],
      })(),
    );
    expect(patched.metadata.labels).toEqual({ tier: 'silver' });
    expect(patched.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    const changed = right(await cluster.patch(ref, { type: 'merge', body: { data: { mode: 'a' } } })());
    expect(changed.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    const secret = right(await cluster.create({ ...configMap, kind: 'Secret' })());
    expect(secret.metadata.labels).toEqual({ tier: 'gold' });
  });
});
