/**
 * Contract: the key order of what the server answers. kube-apiserver encodes through Go's
 * `encoding/json`, which writes map keys sorted (by their bytes): a custom resource is a map at
 * every depth, so all its keys come back sorted, whatever order the client wrote them in; a
 * built-in object keeps its struct fields in Go's order (not asserted here) and its map fields
 * (labels, annotations, data, matchLabels, nodeSelector, resource limits and requests, a
 * StorageClass's parameters, the maps of a CRD's schema at every depth) sorted.
 * Asserted on `Object.keys` as the client receives them, never through a sorting normaliser.
 */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import { isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';
import {
  configMapRef,
  contractGroup,
  letterSuffix,
  must,
  unique,
  widgetApiVersion,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

/**
 * Every object's keys, in the order received, by its path (`spec.zone`, `spec.containers.0`).
 * `metadata.managedFields` is left out: the memory server does not model it.
 */
const keySequences = (value: JsonValue, path = ''): Readonly<Record<string, ReadonlyArray<string>>> => {
  const at = (key: string | number): string => (path === '' ? String(key) : `${path}.${String(key)}`);
  if (isJsonArray(value)) return Object.assign({}, ...value.map((item, i) => keySequences(item, at(i))));
  if (!isJsonObject(value)) return {};
  const keys = Object.keys(value).filter((key) => !(path === 'metadata' && key === 'managedFields'));
  return Object.assign({ [path]: keys }, ...keys.map((key) => keySequences(value[key] ?? null, at(key))));
};

/** The key sequences at the given paths only (a built-in object's struct fields keep Go's order, not asserted). */
const keysAt = (
  value: JsonValue,
  paths: ReadonlyArray<string>,
): Readonly<Record<string, ReadonlyArray<string> | undefined>> => {
  const all = keySequences(value);
  return Object.fromEntries(paths.map((path) => [path, all[path]]));
};

/** Labels and annotations written out of order (uppercase sorts before lowercase), and their keys as served. */
const labels = { zeta: 'z', alpha: 'a', Beta: 'b' };
const labelKeys = ['Beta', 'alpha', 'zeta'];
const annotations = { 'z.example.com/n': '1', 'a.example.com/n': '2' };
const annotationKeys = ['a.example.com/n', 'z.example.com/n'];

const unwrapped = (found: O.Option<Resource>): Resource => {
  if (O.isNone(found)) throw new Error('expected the object to exist');
  return found.value;
};

export const keyOrderContract = (env: () => ContractEnv): void => {
  it('a custom resource comes back with every key sorted at every depth: create, get, list, merge patch, status write', async () => {
    const { cluster, namespace } = env();
    const name = unique('keys');
    const ref = widgetRef(namespace, name);
    // Keys deliberately out of order at every depth (uppercase sorts before lowercase, `-` before `_`).
    const written = {
      spec: {
        zone: { zulu: 1, alpha: { yankee: true, bravo: [{ delta: 1, charlie: 2 }] } },
        size: 1,
        a_b: 'underscore',
        'a-b': 'dash',
        Zed: 'upper',
      },
      kind: 'Widget',
      metadata: { namespace, name, labels, annotations },
      apiVersion: widgetApiVersion,
    } as unknown as Resource;
    const metadata = [
      'annotations',
      'creationTimestamp',
      'generation',
      'labels',
      'name',
      'namespace',
      'resourceVersion',
      'uid',
    ];
    const createdKeys = {
      '': ['apiVersion', 'kind', 'metadata', 'spec'],
      metadata,
      'metadata.annotations': annotationKeys,
      'metadata.labels': labelKeys,
      spec: ['Zed', 'a-b', 'a_b', 'size', 'tier', 'zone'],
      'spec.zone': ['alpha', 'zulu'],
      'spec.zone.alpha': ['bravo', 'yankee'],
      'spec.zone.alpha.bravo.0': ['charlie', 'delta'],
    };
    const created = await must(cluster.create(written));
    expect(keySequences(created)).toEqual(createdKeys);
    expect(keySequences(unwrapped(await must(cluster.get(ref))))).toEqual(createdKeys);
    const listed = await must(
      cluster.list({ apiVersion: widgetApiVersion, kind: 'Widget', namespace, labelSelector: 'zeta=z' }),
    );
    expect(listed.items.filter((item) => item.metadata.name === name).map((item) => keySequences(item))).toEqual([
      createdKeys,
    ]);

    const patched = await must(
      cluster.patch(ref, {
        type: 'merge',
        body: {
          spec: { zone: { mike: { zulu: 0, alpha: 0 }, alpha: { charlie: 'c' } }, Able: 'new' },
          metadata: { labels: { mid: 'm' } },
        },
      }),
    );
    const patchedKeys = {
      ...createdKeys,
      'metadata.labels': ['Beta', 'alpha', 'mid', 'zeta'],
      spec: ['Able', 'Zed', 'a-b', 'a_b', 'size', 'tier', 'zone'],
      'spec.zone': ['alpha', 'mike', 'zulu'],
      'spec.zone.alpha': ['bravo', 'charlie', 'yankee'],
      'spec.zone.mike': ['alpha', 'zulu'],
    };
    expect(keySequences(patched)).toEqual(patchedKeys);

    const status = {
      phase: 'Ready',
      observedGeneration: patched.metadata.generation ?? 0,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Done',
          message: 'ok',
          lastTransitionTime: '2024-01-01T00:00:00Z',
        },
      ],
    };
    const withStatus = await must(cluster.updateStatus({ ...patched, status }));
    const statusKeys = {
      ...patchedKeys,
      '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
      status: ['conditions', 'observedGeneration', 'phase'],
      'status.conditions.0': ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
    };
    expect(keySequences(withStatus)).toEqual(statusKeys);
    expect(keySequences(unwrapped(await must(cluster.get(ref))))).toEqual(statusKeys);
  });

  it('a ConfigMap comes back with its maps sorted (data, binaryData, labels, annotations): create, get, merge patch', async () => {
    const { cluster, namespace } = env();
    const name = unique('keys');
    const ref = configMapRef(namespace, name);
    const created = await must(
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels, annotations },
        data: { 'z.txt': 'z', a_b: 'u', 'a-b': 'd', 'B.txt': 'b', 'a.txt': 'a' },
        binaryData: { zz: 'eg==', aa: 'YQ==' },
      }),
    );
    const paths = ['data', 'binaryData', 'metadata.labels', 'metadata.annotations'];
    const createdKeys = {
      data: ['B.txt', 'a-b', 'a.txt', 'a_b', 'z.txt'],
      binaryData: ['aa', 'zz'],
      'metadata.labels': labelKeys,
      'metadata.annotations': annotationKeys,
    };
    expect(keysAt(created, paths)).toEqual(createdKeys);
    expect(keysAt(unwrapped(await must(cluster.get(ref))), paths)).toEqual(createdKeys);
    const patched = await must(
      cluster.patch(ref, {
        type: 'merge',
        body: {
          data: { 'm.txt': 'm', 'A.txt': 'A' },
          metadata: { annotations: { 'm.example.com/n': '3' }, labels: { mid: 'm' } },
        },
      }),
    );
    const patchedKeys = {
      ...createdKeys,
      data: ['A.txt', 'B.txt', 'a-b', 'a.txt', 'a_b', 'm.txt', 'z.txt'],
      'metadata.labels': ['Beta', 'alpha', 'mid', 'zeta'],
      'metadata.annotations': ['a.example.com/n', 'm.example.com/n', 'z.example.com/n'],
    };
    expect(keysAt(patched, paths)).toEqual(patchedKeys);
    expect(keysAt(unwrapped(await must(cluster.get(ref))), paths)).toEqual(patchedKeys);
  });

  it('a Deployment comes back with matchLabels, template labels, nodeSelector and resource limits and requests sorted', async () => {
    const { cluster, namespace } = env();
    const name = unique('keys');
    const podLabels = { zone: 'z', app: name, Tier: 't' };
    const container: JsonObject = {
      name: 'main',
      image: 'busybox:1.36',
      resources: { limits: { memory: '64Mi', cpu: '100m' }, requests: { memory: '32Mi', cpu: '50m' } },
    };
    const created = await must(
      cluster.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace, labels: podLabels },
        spec: {
          selector: { matchLabels: podLabels },
          template: {
            metadata: { labels: podLabels, annotations },
            spec: { nodeSelector: { 'zz/os': 'linux', 'aa/arch': 'amd64' }, containers: [container] },
          },
        },
      }),
    );
    const sortedLabels = ['Tier', 'app', 'zone'];
    const expected = {
      'metadata.labels': sortedLabels,
      'spec.selector.matchLabels': sortedLabels,
      'spec.template.metadata.labels': sortedLabels,
      'spec.template.metadata.annotations': annotationKeys,
      'spec.template.spec.nodeSelector': ['aa/arch', 'zz/os'],
      'spec.template.spec.containers.0.resources.limits': ['cpu', 'memory'],
      'spec.template.spec.containers.0.resources.requests': ['cpu', 'memory'],
    };
    const paths = Object.keys(expected);
    expect(keysAt(created, paths)).toEqual(expected);
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name };
    expect(keysAt(unwrapped(await must(cluster.get(ref))), paths)).toEqual(expected);
  });

  it("a CRD comes back with its schema's maps sorted at every depth (properties, a default); a StorageClass with its parameters sorted", async () => {
    const { cluster } = env();
    const suffix = letterSuffix('k');
    const crdRef = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `keyorder${suffix}s.${contractGroup}`,
    };
    const str = { type: 'string' };
    // `properties` out of order at two depths, and a default (JSON the server decodes and encodes again).
    const openAPIV3Schema = {
      type: 'object',
      properties: {
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        spec: {
          type: 'object',
          properties: {
            zone: {
              type: 'object',
              properties: { zulu: str, alpha: str },
              default: { zulu: 'z', alpha: 'a' },
            },
            Size: { type: 'integer' },
            alpha: str,
          },
        },
        apiVersion: str,
      },
    };
    const schema = 'spec.versions.0.schema.openAPIV3Schema';
    const expected = {
      [`${schema}.properties`]: ['apiVersion', 'spec', 'status'],
      [`${schema}.properties.spec.properties`]: ['Size', 'alpha', 'zone'],
      [`${schema}.properties.spec.properties.zone.properties`]: ['alpha', 'zulu'],
      [`${schema}.properties.spec.properties.zone.default`]: ['alpha', 'zulu'],
    };
    const paths = Object.keys(expected);
    const created = await must(
      cluster.create({
        apiVersion: crdRef.apiVersion,
        kind: crdRef.kind,
        metadata: { name: crdRef.name },
        spec: {
          group: contractGroup,
          scope: 'Cluster',
          names: { plural: `keyorder${suffix}s`, kind: `KeyOrder${suffix}` },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
        },
      }),
    );
    try {
      expect(keysAt(created, paths)).toEqual(expected);
      expect(keysAt(unwrapped(await must(cluster.get(crdRef))), paths)).toEqual(expected);
    } finally {
      await must(cluster.delete(crdRef));
    }

    const classRef = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', name: unique('keys') };
    const storageClass = await must(
      cluster.create({
        apiVersion: classRef.apiVersion,
        kind: classRef.kind,
        metadata: { name: classRef.name },
        provisioner: 'example.com/none',
        parameters: { zone: 'z', 'csi.storage.k8s.io/fstype': 'ext4', Type: 't', alpha: 'a' },
      }),
    );
    try {
      const parameters = { parameters: ['Type', 'alpha', 'csi.storage.k8s.io/fstype', 'zone'] };
      expect(keysAt(storageClass, ['parameters'])).toEqual(parameters);
      expect(keysAt(unwrapped(await must(cluster.get(classRef))), ['parameters'])).toEqual(parameters);
    } finally {
      await must(cluster.delete(classRef));
    }
  });
};
