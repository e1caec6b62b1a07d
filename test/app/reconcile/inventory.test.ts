/**
 * The inventory record (docs/decisions/0028): its name, decoding what anyone who may edit
 * ConfigMaps could have written (bounded, entry by entry), and how apply's changes update it.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_INVENTORY,
  MAX_INVENTORY_KINDS,
  MAX_INVENTORY_NAMESPACES,
  MAX_INVENTORY_OBJECTS,
  MAX_OBJECTS_TEXT,
  inventoryConfigMap,
  inventoryEntries,
  inventoryName,
  inventoryOf,
  withObjects,
} from '../../../app/reconcile/inventory.js';
import type { ObjectRef, Resource } from '../../../core/internal.js';

const configMap = (data: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kreconcile-inventory.web', namespace: 'shop' },
  data,
});

const policy: ObjectRef = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  namespace: 'shop',
  name: 'deny',
};
const conf: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'conf' };
const role: ObjectRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:web:reader' };

describe('inventory', () => {
  it('is named after the Application, within the 253 characters of a name, one per Application', () => {
    expect(inventoryName({ name: 'web' })).toBe('kreconcile-inventory.web');
    const long = (last: string) => inventoryName({ name: `${'a'.repeat(240)}${last}` });
    expect(long('x').length).toBeLessThanOrEqual(253);
    expect(long('x')).toMatch(/^kreconcile-inventory\.a+-[0-9a-f]{8}$/);
    expect(long('x')).not.toBe(long('y'));
  });

  it('round-trips what apply records, cluster-scoped objects and RBAC names included', () => {
    const recorded = withObjects(EMPTY_INVENTORY, [policy, conf, role]);
    const written = inventoryConfigMap({ namespace: 'shop', name: 'web' }, recorded);
    if (E.isLeft(written)) throw new Error(written.left);
    expect(written.right.metadata).toMatchObject({
      name: 'kreconcile-inventory.web',
      namespace: 'shop',
      annotations: { 'kreconcile.io/inventory-of': 'shop/web' },
    });
    expect(inventoryOf(written.right)).toEqual(recorded);
    expect(recorded.kinds.map((k) => k.kind)).toEqual(['NetworkPolicy', 'ConfigMap', 'ClusterRole']);
  });

  it('reads hostile content bounded: bad JSON, bad entries, prototype keys and oversized texts are skipped', () => {
    expect(inventoryOf(configMap({ kinds: '{not json', objects: '"a string"' }))).toEqual(EMPTY_INVENTORY);
    expect(inventoryOf(configMap({ kinds: JSON.stringify([{ apiVersion: 'v1', kind: 'Pod' }]) })).kinds).toEqual([
      { apiVersion: 'v1', kind: 'Pod' },
    ]);
    const hostile = inventoryOf(
      configMap({
        kinds: JSON.stringify([
          { apiVersion: '../../api/v1', kind: 'Pod' },
          { apiVersion: 'v1', kind: 'Pod?watch=1' },
          JSON.parse('{"__proto__": {"polluted": true}, "apiVersion": "v1", "kind": "Secret"}'),
        ]),
        objects: JSON.stringify([
          { ...conf, name: '../escape' },
          { ...conf, namespace: 'UPPER' },
          { ...conf, name: 'x'.repeat(254) },
          { ...conf, extra: 'ignored' },
        ]),
      }),
    );
    expect(hostile.kinds).toEqual([
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'v1', kind: 'ConfigMap' },
    ]);
    expect(hostile.objects).toEqual([conf]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Texts over the bound are not parsed at all.
    expect(inventoryOf(configMap({ objects: ' '.repeat(MAX_OBJECTS_TEXT + 1) }))).toEqual(EMPTY_INVENTORY);
    const many = Array.from({ length: MAX_INVENTORY_KINDS + 50 }, (_, i) => ({ apiVersion: 'v1', kind: `K${i}` }));
    expect(inventoryOf(configMap({ kinds: JSON.stringify(many) })).kinds).toHaveLength(MAX_INVENTORY_KINDS);
    // Not a ConfigMap: no inventory.
    expect(inventoryOf({ ...configMap({ kinds: '[]' }), kind: 'Secret' })).toEqual(EMPTY_INVENTORY);
  });

  it('drops an object once deleted, and its kind with its last object, never a kind it may still hold', () => {
    const both = withObjects(EMPTY_INVENTORY, [policy, conf]);
    const pruned = withObjects(both, [], [policy]);
    expect(pruned.objects).toEqual([conf]);
    expect(pruned.kinds).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap' }]);
    // Incomplete: the record may not name every object, so the kind stays.
    const partial = withObjects({ ...both, complete: false }, [], [policy]);
    expect(partial.kinds.map((k) => k.kind)).toEqual(['NetworkPolicy', 'ConfigMap']);
  });

  it('keeps the kinds when there are more objects than it holds, and refuses more kinds than it holds', () => {
    const objects = Array.from({ length: MAX_INVENTORY_OBJECTS + 1 }, (_, i) => ({ ...conf, name: `c${i}` }));
    const full = withObjects(EMPTY_INVENTORY, objects);
    expect(full).toMatchObject({ complete: false, kinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }] });
    expect(full.objects).toHaveLength(MAX_INVENTORY_OBJECTS);
    const kinds = Array.from({ length: MAX_INVENTORY_KINDS + 1 }, (_, i) => ({ ...conf, kind: `K${i}` }));
    const refused = inventoryConfigMap({ namespace: 'shop', name: 'web' }, withObjects(EMPTY_INVENTORY, kinds));
    expect(refused).toEqual(
      E.left(
        `the inventory holds at most ${MAX_INVENTORY_KINDS} kinds and this Application's writes name ${MAX_INVENTORY_KINDS + 1}: split the Application`,
      ),
    );
  });
});

describe('inventory entries for the live reader', () => {
  it('name every kind, and the objects of at most MAX_INVENTORY_NAMESPACES namespaces (a tenant cannot make the reader list more)', () => {
    const spread = Array.from({ length: MAX_INVENTORY_NAMESPACES + 10 }, (_, i) => ({ ...conf, namespace: `ns-${i}` }));
    const entries = inventoryEntries(withObjects(EMPTY_INVENTORY, [...spread, role]));
    const namespaces = new Set(entries.flatMap((entry) => entry.metadata.namespace ?? []));
    expect(namespaces.size).toBe(MAX_INVENTORY_NAMESPACES);
    // Both kinds still named, the cluster-scoped object kept.
    expect(entries.filter((entry) => entry.metadata.name === '').map((entry) => entry.kind)).toEqual([
      'ConfigMap',
      'ClusterRole',
    ]);
    expect(entries.some((entry) => entry.metadata.name === role.name)).toBe(true);
  });
});
