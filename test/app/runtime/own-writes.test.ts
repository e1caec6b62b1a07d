/**
 * Read-your-own-writes in the write path (own-writes.ts): every answer reaches the caches as the
 * write returns, before the caller goes on; a delete tells the caches what went; refused writes and
 * dry runs tell them nothing.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster } from '../../../adapters/memory/index.js';
import type { ObjectRef, Resource } from '../../../core/internal.js';
import { OwnWrites } from '../../../app/runtime/own-writes.js';

const configMap = (name: string): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { a: '1' },
});

const refOf = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });

const world = () => {
  const cluster = createMemoryCluster({ clock: new ManualClock(), seed: 3 });
  const told: Array<string> = [];
  const writes = new OwnWrites(cluster, {
    written: (object) => told.push(`written ${object.metadata.name}@${object.metadata.resourceVersion ?? ''}`),
    deleted: (ref) => told.push(`deleted ${ref.name}`),
  });
  return { cluster, writes, told };
};

describe('OwnWrites', () => {
  it('hands each answer on as the write returns, in the order the writes were answered', async () => {
    const { writes, told } = world();
    const created = await writes.create(configMap('one'))();
    if (E.isLeft(created)) throw new Error('create failed');
    expect(told).toEqual([`written one@${created.right.metadata.resourceVersion ?? ''}`]);
    const patched = await writes.patch(refOf('one'), { type: 'merge', body: { data: { a: '2' } } })();
    if (E.isLeft(patched)) throw new Error('patch failed');
    expect(told.at(-1)).toBe(`written one@${patched.right.metadata.resourceVersion ?? ''}`);
    expect(await writes.delete(refOf('one'))()).toEqual(E.right(expect.anything()));
    expect(told.at(-1)).toBe('deleted one');
    expect(told).toHaveLength(3);
  });

  it('a delete of an object already gone (404) tells the caches it went; other refusals tell nothing', async () => {
    const { writes, told } = world();
    const missing = await writes.delete(refOf('never'))();
    expect(E.isLeft(missing) && missing.left._tag).toBe('NotFound');
    expect(told).toEqual(['deleted never']);
    const invalid = await writes.patch(refOf('never'), { type: 'merge', body: { data: { a: '2' } } })();
    expect(E.isLeft(invalid)).toBe(true);
    expect(told).toEqual(['deleted never']);
  });

  it('a delete kept by finalizers hands on the terminating object', async () => {
    const { cluster, writes, told } = world();
    await cluster.create({
      ...configMap('kept'),
      metadata: { name: 'kept', namespace: 'default', finalizers: ['x/y'] },
    })();
    const removal = await writes.delete(refOf('kept'))();
    if (E.isLeft(removal)) throw new Error('delete failed');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^written kept@/);
  });

  it('a dry run is not what the object is: nothing is handed on', async () => {
    const { writes, told } = world();
    const dry = await writes.create(configMap('dry'), { dryRun: true })();
    expect(E.isRight(dry)).toBe(true);
    expect(told).toEqual([]);
  });
});
