/**
 * Strategic merge patch of built-in kinds (adapters/memory/strategic): lists merged by the merge
 * keys and strategies of the committed Kubernetes schemas, every directive, and the server's
 * failures. Expected values are kube-apiserver 1.36's answers to the same patches (the
 * differential test, test/integration/strategic-merge-differential.test.ts, checks the engine
 * against the real server on generated patches).
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { getIn, type JsonObject } from '../../../../core/json/json.js';
import { createMemoryCluster } from '../../../../adapters/memory/index.js';
import { applicationCrd } from '../../../../app/manifests/crd.js';
import { strategicPatched } from '../../../../adapters/memory/strategic/index.js';

const deployment = (containers: ReadonlyArray<JsonObject>, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', finalizers: ['a.example/x', 'b.example/y'] },
  spec: {
    replicas: 1,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: { spec: { containers, ...extra } },
  },
});

const web = {
  name: 'web',
  image: 'nginx:1',
  env: [
    { name: 'A', value: '1' },
    { name: 'B', value: '2' },
  ],
};
const side = { name: 'side', image: 'busybox', args: ['sleep', '1'] };

const patched = (base: JsonObject, patch: JsonObject): JsonObject => {
  const result = strategicPatched('apps/v1', 'Deployment', base, patch);
  if (E.isLeft(result)) throw new Error(`unexpected failure: ${result.left.message}`);
  return result.right;
};
const containersOf = (object: JsonObject): unknown =>
  (((object.spec as JsonObject).template as JsonObject).spec as JsonObject).containers;
const failure = (base: JsonObject, patch: JsonObject) => {
  const result = strategicPatched('apps/v1', 'Deployment', base, patch);
  if (E.isRight(result)) throw new Error('expected a failure');
  return { code: result.left.code, message: result.left.message };
};
const podPatch = (spec: JsonObject): JsonObject => ({ spec: { template: { spec } } });

describe('strategic merge patch of a Deployment', () => {
  const base = deployment([web, side]);

  it('merges containers by name and env by name; args (no strategy) are replaced', () => {
    const result = patched(
      base,
      podPatch({
        containers: [
          { name: 'web', image: 'nginx:2', env: [{ name: 'B', value: '3' }] },
          { name: 'side', args: ['x'] },
        ],
      }),
    );
    expect(containersOf(result)).toEqual([
      {
        name: 'web',
        image: 'nginx:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
        ],
      },
      { name: 'side', image: 'busybox', args: ['x'] },
    ]);
  });

  it('puts a new item before the server-only ones, unless $setElementOrder says otherwise', () => {
    const added = { name: 'log', image: 'fluentd' };
    expect(containersOf(patched(base, podPatch({ containers: [added] })))).toEqual([added, web, side]);
    const ordered = patched(
      base,
      podPatch({
        '$setElementOrder/containers': [{ name: 'web' }, { name: 'side' }, { name: 'log' }],
        containers: [added],
      }),
    );
    expect(containersOf(ordered)).toEqual([web, side, added]);
  });

  it('$patch: delete removes an item by merge key, $patch: replace makes the patch list the list', () => {
    expect(containersOf(patched(base, podPatch({ containers: [{ name: 'side', $patch: 'delete' }] })))).toEqual([web]);
    const replaced = patched(base, podPatch({ containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] }));
    expect(containersOf(replaced)).toEqual([{ name: 'only', image: 'x' }]);
  });

  it('merges finalizers (a merge list of strings) and removes with $deleteFromPrimitiveList', () => {
    const added = patched(base, { metadata: { finalizers: ['c.example/z', 'a.example/x'] } });
    expect((added.metadata as JsonObject).finalizers).toEqual(['c.example/z', 'a.example/x', 'b.example/y']);
    const removed = patched(base, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/x'] } });
    expect((removed.metadata as JsonObject).finalizers).toEqual(['b.example/y']);
  });

  it('$retainKeys clears the members it does not list (a Deployment strategy switched to Recreate)', () => {
    const result = patched(base, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    expect((result.spec as JsonObject).strategy).toEqual({ type: 'Recreate' });
    expect(failure(base, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } })).toEqual({
      code: 400,
      message: 'invalid patch format of retainKeys',
    });
  });

  it('null removes a field; $patch on a map replaces or empties it', () => {
    expect((patched(base, { spec: { strategy: null } }).spec as JsonObject).strategy).toBeUndefined();
    const strategy = (patch: JsonObject) => (patched(base, { spec: { strategy: patch } }).spec as JsonObject).strategy;
    expect(strategy({ $patch: 'replace', type: 'Recreate' })).toEqual({ type: 'Recreate' });
    expect(strategy({ $patch: 'delete' })).toEqual({});
  });

  it('a value the original lacks is taken without its nulls and directive maps', () => {
    const result = patched(deployment([]), {
      spec: { paused: true, selector: { matchLabels: { a: 'b', gone: null }, keep: { $patch: 'delete' } } },
    });
    expect((result.spec as JsonObject).selector).toEqual({ matchLabels: { a: 'b' } });
  });

  it('fails as the server does: missing merge key (500), list of lists (422), $patch: merge in a list (500)', () => {
    expect(failure(base, podPatch({ containers: [{ image: 'x' }] }))).toEqual({
      code: 500,
      message: 'map: map[image:x] does not contain declared merge key: name',
    });
    expect(failure(deployment([]), podPatch({ containers: [['x']] })).code).toBe(422);
    expect(failure(base, podPatch({ containers: [{ $patch: 'merge' }] }))).toEqual({
      code: 500,
      message: 'merging lists cannot yet be specified in the patch',
    });
    expect(failure(base, { spec: { strategy: { $patch: 'keep' } } })).toEqual({
      code: 500,
      message: 'unknown patch type: keep in map: map[$patch:keep]',
    });
    expect(failure(base, podPatch({ containers: [{ name: 'a' }, 'b'] })).message).toMatch(
      /^list element types are not identical: /,
    );
    expect(failure(base, { metadata: { $deleteFromPrimitiveListfinalizers: [] } })).toEqual({
      code: 400,
      message: 'invalid patch format of primitive list',
    });
  });

  it('keeps __proto__ as data and never changes its inputs', () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"x":"1"}}}}') as JsonObject;
    const before = JSON.stringify(base);
    const result = patched(base, patch);
    expect(Object.getPrototypeOf((result.metadata as JsonObject).labels)).toBe(Object.prototype);
    expect(Object.keys((result.metadata as JsonObject).labels as JsonObject)).toEqual(['__proto__']);
    expect(JSON.stringify(base)).toBe(before);
  });
});

describe('strategic merge patch through the memory cluster', () => {
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd' };
  /** A memory cluster holding Deployment `d` with these containers. */
  const withDeployment = async (containers: ReadonlyArray<JsonObject>) => {
    const cluster = createMemoryCluster({ workloads: false });
    const created = await cluster.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers } },
      },
    })();
    if (E.isLeft(created)) throw new Error(created.left.message);
    return { cluster, created: created.right };
  };

  it("re-applying an unchanged container list that says cpu: 1000m (stored as 1) is a no-op, as kubectl apply's patch is on a real server", async () => {
    const container = { name: 'c', image: 'nginx:1.27', resources: { limits: { cpu: '1000m' } } };
    const { cluster, created } = await withDeployment([container]);
    const patched = await cluster.patch(ref, {
      type: 'strategic',
      body: { spec: { template: { spec: { containers: [container] } } } },
    })();
    if (E.isLeft(patched)) throw new Error(patched.left.message);
    expect(patched.right.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(getIn(patched.right, ['spec', 'template', 'spec', 'containers', 0, 'resources'])).toEqual({
      limits: { cpu: '1' },
    });
  });

  it('merges status conditions by type on the status subresource (controllers patch status this way)', async () => {
    const { cluster } = await withDeployment([{ name: 'c', image: 'i' }]);
    const conditions = (list: ReadonlyArray<JsonObject>) => ({
      type: 'strategic' as const,
      body: { status: { conditions: list } },
    });
    await cluster.patchStatus(
      ref,
      conditions([
        { type: 'Available', status: 'True' },
        { type: 'Progressing', status: 'True' },
      ]),
    )();
    const patched = await cluster.patchStatus(ref, conditions([{ type: 'Available', status: 'False' }]))();
    expect(E.isRight(patched) && getIn(patched.right, ['status', 'conditions'])).toEqual([
      { type: 'Available', status: 'False' },
      { type: 'Progressing', status: 'True' },
    ]);
  });

  it('refuses a strategic merge patch of a custom resource with the real 415 message', async () => {
    const cluster = createMemoryCluster({ workloads: false });
    await cluster.create(applicationCrd())();
    await cluster.settle();
    const refused = await cluster.patch(
      { apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', namespace: 'default', name: 'missing' },
      { type: 'strategic', body: { spec: {} } },
    )();
    expect(E.isLeft(refused) && { code: refused.left.code, message: refused.left.message }).toEqual({
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
  });
});
