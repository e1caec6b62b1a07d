/** The test kit's Promise facade: calls run when called, answers resolve, failures reject with the tagged error. */
import { describe, expect, it } from 'vitest';
import {
  ClusterCallError,
  createMemoryCluster,
  isClusterCallError,
  promiseCluster,
} from '../../../app/testing/index.js';
import type { Resource } from '../../../core/internal.js';

const configMap = (name: string, data: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});
const ref = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

const rejection = async (promise: Promise<unknown>): Promise<ClusterCallError> => {
  const outcome = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(outcome instanceof ClusterCallError)) throw new Error(`expected a ClusterCallError, got ${String(outcome)}`);
  return outcome;
};

describe('promiseCluster', () => {
  it('an awaited create stores the object (no trailing () needed) and get reads it back', async () => {
    const memory = createMemoryCluster();
    const cluster = promiseCluster(memory);
    const created = await cluster.create(configMap('a', { k: 'v' }));
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(
      memory
        .objects()
        .filter((o) => o.kind === 'ConfigMap')
        .map((o) => o.metadata.name),
    ).toEqual(['a']);
    expect(await cluster.get(ref('a'))).toEqual(created);
    expect(await cluster.get(ref('missing'))).toBeUndefined();
  });

  it('failures reject with the tagged ClusterError inside an Error subclass', async () => {
    const cluster = promiseCluster(createMemoryCluster());
    await cluster.create(configMap('a', {}));
    const duplicate = await rejection(cluster.create(configMap('a', {})));
    expect(duplicate.error).toMatchObject({ _tag: 'AlreadyExists', code: 409 });
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate.message).toMatch(/^AlreadyExists \(409\)/);
    expect(isClusterCallError(duplicate, 'AlreadyExists')).toBe(true);
    expect(isClusterCallError(duplicate, 'NotFound')).toBe(false);
    expect(
      (await rejection(cluster.patch(ref('missing'), { type: 'merge', body: { data: { x: '1' } } }))).error._tag,
    ).toBe('NotFound');
    expect((await rejection(cluster.scopeOf('nope.example/v1', 'Thing'))).error._tag).toBe('UnknownKind');
  });

  it('update, patch, status writes, list and delete answer like the port, with absence as undefined', async () => {
    const memory = createMemoryCluster();
    const cluster = promiseCluster(memory);
    const created = await cluster.create(configMap('a', { v: '1' }));
    const updated = await cluster.update({ ...created, data: { v: '2' } });
    expect(updated.data).toEqual({ v: '2' });
    const patched = await cluster.patch(ref('a'), {
      type: 'json',
      operations: [{ op: 'add', path: '/data/w', value: '3' }],
    });
    expect(patched.data).toEqual({ v: '2', w: '3' });
    expect(
      (await cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' })).items.map(
        (o) => o.metadata.name,
      ),
    ).toEqual(['a']);
    const deployment = await cluster.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const withStatus = await cluster.patchStatus(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd' },
      { type: 'merge', body: { status: { replicas: 7 } } },
    );
    expect(withStatus.status).toMatchObject({ replicas: 7 });
    expect((await cluster.updateStatus({ ...withStatus, status: { replicas: 8 } })).status).toMatchObject({
      replicas: 8,
    });
    expect(deployment.metadata.generation).toBe(1);
    expect(await cluster.delete(ref('a'))).toBeUndefined();
    expect(memory.objects().filter((o) => o.kind === 'ConfigMap')).toEqual([]);
    expect((await rejection(cluster.delete(ref('a')))).error._tag).toBe('NotFound');
    expect(await cluster.scopeOf('v1', 'Namespace')).toBe('Cluster');
  });

  it('a delete held by a finalizer resolves with the object', async () => {
    const cluster = promiseCluster(createMemoryCluster());
    await cluster.create({
      ...configMap('held', {}),
      metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/keep'] },
    });
    const pending = await cluster.delete(ref('held'));
    expect(pending?.metadata.deletionTimestamp).toBeDefined();
  });
});
