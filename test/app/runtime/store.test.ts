/**
 * The store alone (the cache of one kind and its indexes): a relist answers its differences and
 * keeps unchanged objects' identity; stale watch events change nothing; a write's answer is kept
 * unless the store holds a newer version, and an answer showing the object deleted removes it.
 */
import { describe, expect, it } from 'vitest';
import { Store } from '../../../app/runtime/store.js';
import type { Resource } from '../../../core/internal.js';

const configMap = (name: string, resourceVersion: string, metadata: Record<string, unknown> = {}): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion, annotations: { owner: `app-${name.length}` }, ...metadata },
});
const ownerIndex = (object: Resource) => object.metadata.annotations?.['owner'];
const changes = (list: ReadonlyArray<{ type: string; object: Resource }>) =>
  list.map((change) => `${change.type} ${change.object.metadata.name}@${change.object.metadata.resourceVersion}`);

describe('the store', () => {
  it('answers a relist with its differences, keeping the identity of objects whose version did not move', () => {
    const store = new Store(ownerIndex);
    const a = configMap('a', '1');
    expect(changes(store.replace([a, configMap('bb', '2')]))).toEqual(['ADDED a@1', 'ADDED bb@2']);
    expect(changes(store.replace([configMap('a', '1'), configMap('ccc', '4')]))).toEqual([
      'DELETED bb@2',
      'ADDED ccc@4',
    ]);
    expect(store.get('default', 'a')).toBe(a);
    expect(store.getByKey('default/a')).toBe(a);
    expect(store.byIndex('app-2')).toEqual([]);
    expect(store.byIndex('app-3').map((object) => object.metadata.name)).toEqual(['ccc']);
  });

  it('ignores duplicate and stale watch events; a deletion always applies', () => {
    const store = new Store();
    store.replace([configMap('a', '5')]);
    expect(store.event({ type: 'MODIFIED', object: configMap('a', '5') })).toBeUndefined();
    expect(store.event({ type: 'MODIFIED', object: configMap('a', '4') })).toBeUndefined();
    expect(store.event({ type: 'MODIFIED', object: configMap('a', '6') })?.old?.metadata.resourceVersion).toBe('5');
    expect(store.event({ type: 'DELETED', object: configMap('a', '3') })?.type).toBe('DELETED');
    expect(store.size).toBe(0);
  });

  it('keeps a write’s answer unless it holds a newer version; an answer showing the object deleted removes it', () => {
    const store = new Store(ownerIndex);
    store.replace([configMap('a', '5', { finalizers: ['kreconcile.io/cleanup'] })]);
    store.apply(configMap('a', '4'));
    expect(store.get('default', 'a')?.metadata.resourceVersion).toBe('5');
    // The write removing the last finalizer of an object being deleted: the server deleted it as it answered.
    store.apply(configMap('a', '7', { deletionTimestamp: '2025-01-01T00:00:05Z', deletionGracePeriodSeconds: 0 }));
    expect(store.get('default', 'a')).toBeUndefined();
    expect(store.byIndex('app-1')).toEqual([]);
    // Arriving after its DELETED event, it does not bring the object back either.
    store.apply(configMap('a', '7', { deletionTimestamp: '2025-01-01T00:00:05Z', finalizers: [] }));
    expect(store.size).toBe(0);
    // A Pod in its grace period, or an object still held by a finalizer, is still there.
    store.apply(configMap('b', '8', { deletionTimestamp: '2025-01-01T00:00:05Z', deletionGracePeriodSeconds: 30 }));
    store.apply(configMap('c', '9', { deletionTimestamp: '2025-01-01T00:00:05Z', finalizers: ['x'] }));
    expect(store.list().map((object) => object.metadata.name)).toEqual(['b', 'c']);
  });

  it('keeps objects without managedFields, from a list, a watch event and a write answer alike, and announces them so', () => {
    const managedFields = [
      { manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } },
    ];
    const store = new Store();
    const listed = store.replace([configMap('a', '1', { managedFields })]);
    const watched = store.event({ type: 'ADDED', object: configMap('b', '2', { managedFields }) });
    store.apply(configMap('c', '3', { managedFields }));
    for (const name of ['a', 'b', 'c']) {
      expect(store.get('default', name)?.metadata).not.toHaveProperty('managedFields');
      expect(store.get('default', name)?.metadata.resourceVersion).toBeDefined();
    }
    expect(listed[0]?.object).toBe(store.get('default', 'a'));
    expect(watched?.object).toBe(store.get('default', 'b'));
    expect(watched?.object.metadata).not.toHaveProperty('managedFields');
  });
  it('moves its revision at every object stored or removed, and only then', () => {
    const store = new Store(ownerIndex);
    const start = store.revision;
    store.replace([configMap('a', '1'), configMap('b', '2')]);
    const listed = store.revision;
    expect(listed).toBeGreaterThan(start);
    store.replace([configMap('a', '1'), configMap('b', '2')]); // unchanged versions: nothing stored
    store.event({ type: 'MODIFIED', object: configMap('a', '1') }); // stale
    store.apply(configMap('b', '1')); // older than the cache
    store.forget('default', 'missing');
    expect(store.revision).toBe(listed);
    store.apply(configMap('a', '3'));
    const applied = store.revision;
    expect(applied).toBeGreaterThan(listed);
    store.forget('default', 'b');
    expect(store.revision).toBeGreaterThan(applied);
  });
});
