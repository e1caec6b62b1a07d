/**
 * Memory adapter: objects stored in the key order kube-apiserver answers with (Go's encoding/json
 * sorts map keys by their bytes); the contract suite proves the order against a real server, this
 * file the corners it cannot reach cheaply (byte order beyond the BMP, `__proto__` keys, dry runs).
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { getOwn, objectFromEntries, type JsonObject } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { byteOrder, orderedCopy } from '../../../adapters/memory/json/json-copy.js';
import { serverKeyOrder } from '../../../adapters/memory/typing/key-order.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';

describe('the key order of stored objects', () => {
  it('byte order of UTF-8: a code point beyond the BMP sorts after U+FFFF (UTF-16 code units say otherwise)', () => {
    const keys = ['\u{1F600}', '\uFFFF', 'b', 'B', '_', '-', 'é'];
    expect([...keys].sort(byteOrder)).toEqual(['-', 'B', '_', 'b', 'é', '\uFFFF', '\u{1F600}']);
    expect([...keys].sort()).not.toEqual([...keys].sort(byteOrder));
  });

  it('a custom resource is sorted at every depth, lists kept in order, a `__proto__` key kept as data', () => {
    const hostile = objectFromEntries([
      ['z', 1],
      ['__proto__', { y: 1, x: 2 }],
      ['A', 3],
    ]);
    const copy = orderedCopy({ spec: { list: [{ b: 1, a: 2 }, 'x'], hostile }, kind: 'K' }, 'sorted');
    expect(JSON.stringify(copy)).toBe(
      '{"kind":"K","spec":{"hostile":{"A":3,"__proto__":{"x":2,"y":1},"z":1},"list":[{"a":2,"b":1},"x"]}}',
    );
    const copied = (copy.spec as JsonObject).hostile as JsonObject;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(getOwn(copied, '__proto__')).toEqual({ x: 2, y: 1 });
  });

  it("a built-in kind: its map fields sorted, its struct fields as written (Go's struct order is not modelled)", () => {
    const order = serverKeyOrder({ group: '', kind: 'ConfigMap', custom: false });
    const copy = orderedCopy(
      { metadata: { name: 'c', labels: { b: '1', a: '2' } }, kind: 'ConfigMap', data: { z: '', y: '' } },
      order,
    );
    expect(JSON.stringify(copy)).toBe(
      '{"metadata":{"name":"c","labels":{"a":"2","b":"1"}},"kind":"ConfigMap","data":{"y":"","z":""}}',
    );
  });

  it('CSI and flex volume maps of PersistentVolumes and pod templates sorted; a CRD schema sorted below items, allOf and additionalProperties', () => {
    const attributes = { z: '1', a: '2' };
    const volumes = [
      { name: 'v', csi: { driver: 'd', volumeAttributes: attributes }, flexVolume: { options: attributes } },
    ];
    const pv = orderedCopy(
      { spec: { csi: { volumeAttributes: attributes }, flexVolume: { options: attributes } } },
      serverKeyOrder({ group: '', kind: 'PersistentVolume', custom: false }),
    );
    expect(JSON.stringify(pv)).toBe(
      '{"spec":{"csi":{"volumeAttributes":{"a":"2","z":"1"}},"flexVolume":{"options":{"a":"2","z":"1"}}}}',
    );
    const cron = orderedCopy(
      { spec: { jobTemplate: { spec: { template: { spec: { volumes } } } } } },
      serverKeyOrder({ group: 'batch', kind: 'CronJob', custom: false }),
    );
    expect(JSON.stringify(cron)).toBe(
      '{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"volumes":[{"name":"v","csi":{"driver":"d","volumeAttributes":{"a":"2","z":"1"}},"flexVolume":{"options":{"a":"2","z":"1"}}}]}}}}}}',
    );
    const deep = { type: 'object', properties: { z: {}, a: {} } };
    const openAPIV3Schema = {
      type: 'array',
      items: { allOf: [{ additionalProperties: deep }], properties: { y: { items: [deep] }, b: {} } },
    };
    const crd = orderedCopy(
      { spec: { versions: [{ schema: { openAPIV3Schema } }] } },
      serverKeyOrder({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition', custom: false }),
    );
    const sorted = '{"type":"object","properties":{"a":{},"z":{}}}';
    expect(JSON.stringify(crd)).toBe(
      `{"spec":{"versions":[{"schema":{"openAPIV3Schema":{"type":"array","items":{"allOf":[{"additionalProperties":${sorted}}],"properties":{"b":{},"y":{"items":[${sorted}]}}}}}}]}}`,
    );
  });

  it('a dry run answers in the order a real write stores', async () => {
    const cluster = createMemoryCluster();
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'dry', namespace: 'default', labels: { b: '1', a: '2' } },
      data: { z: '1', y: '2' },
    } satisfies Resource;
    const dry = await cluster.create(object, { dryRun: true })();
    const stored = await cluster.create(object)();
    if (E.isLeft(dry) || E.isLeft(stored)) throw new Error('create failed');
    for (const answer of [dry.right, stored.right]) {
      expect(Object.keys(answer.data ?? {})).toEqual(['y', 'z']);
      expect(Object.keys(answer.metadata.labels ?? {})).toEqual(['a', 'b']);
    }
  });
});
