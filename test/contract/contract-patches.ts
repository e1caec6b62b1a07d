/**
 * Contract: RFC 6902 JSON Patch (test ops, pointer escaping, resourceVersion guards), RFC 7386 merge patch, server-side
 * apply.
 */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import {
  asNumber,
  configMap,
  configMapRef,
  expectError,
  failure,
  JSON_PATCH_APPLY_FAILURE,
  must,
  unique,
  widget,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

export const patchContract = (env: () => ContractEnv): void => {
  it('JSON Patch: add, replace, remove and a passing test apply in order', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1, color: 'red', parts: ['a', 'b'] })));
    const patched = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [
          { op: 'test', path: '/spec/color', value: 'red' },
          { op: 'replace', path: '/spec/size', value: 3 },
          { op: 'remove', path: '/spec/color' },
          { op: 'add', path: '/spec/parts/1', value: 'x' },
          { op: 'add', path: '/spec/parts/-', value: 'z' },
          { op: 'add', path: '/spec/nested', value: { deep: true } },
        ],
      }),
    );
    expect(patched.spec).toEqual({ size: 3, tier: 'standard', parts: ['a', 'x', 'b', 'z'], nested: { deep: true } });
    expect(patched.metadata.generation).toBe(2);
    expect(asNumber(patched.metadata.resourceVersion)).toBeGreaterThan(asNumber(created.metadata.resourceVersion));
  });

  it('JSON Patch: a failing test op rejects the whole patch (the apply-failure answer) and changes nothing', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    const error = await failure(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [
          { op: 'replace', path: '/spec/size', value: 9 },
          { op: 'test', path: '/spec/size', value: 1 },
        ],
      }),
    );
    expectError(error, JSON_PATCH_APPLY_FAILURE.tag, JSON_PATCH_APPLY_FAILURE.code);
    expect(await must(cluster.get(widgetRef(namespace, name)))).toEqual(O.some(created));
  });

  it('JSON Patch: removing a path that does not exist is the apply failure; replace of a missing member adds it', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    await must(cluster.create(widget(namespace, name, { size: 1, list: [1] })));
    for (const operation of [
      { op: 'remove', path: '/spec/absent' },
      { op: 'add', path: '/spec/no/parent', value: 1 },
      { op: 'replace', path: '/spec/list/5', value: 1 },
      { op: 'remove', path: '/spec/list/5' },
    ] as const) {
      expectError(
        await failure(cluster.patch(widgetRef(namespace, name), { type: 'json', operations: [operation] })),
        JSON_PATCH_APPLY_FAILURE.tag,
        JSON_PATCH_APPLY_FAILURE.code,
      );
    }
    // Real kube-apiserver 1.36 (evanphx/json-patch v4, kept for compatibility): `replace` of a
    // missing OBJECT member does not fail, it adds the member (RFC 6902 says it must fail). Same
    // for built-in kinds (ConfigMap /data/absent). A missing array index still fails (above).
    const replaced = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [{ op: 'replace', path: '/spec/absent', value: 1 }],
      }),
    );
    expect(replaced.spec).toEqual({ size: 1, list: [1], absent: 1, tier: 'standard' });
  });

  it("JSON Patch: test of a missing member passes only against null (as the server's patch library does)", async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    const created = await must(cluster.create(widget(namespace, name, { size: 1 })));
    const passed = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [
          { op: 'test', path: '/spec/absent', value: null },
          { op: 'replace', path: '/spec/size', value: 2 },
        ],
      }),
    );
    expect((passed.spec as { size: number }).size).toBe(2);
    expectError(
      await failure(
        cluster.patch(widgetRef(namespace, name), {
          type: 'json',
          operations: [{ op: 'test', path: '/spec/absent', value: 'x' }],
        }),
      ),
      JSON_PATCH_APPLY_FAILURE.tag,
      JSON_PATCH_APPLY_FAILURE.code,
    );
    expect(created.metadata.generation).toBe(1);
  });

  it('JSON Patch: pointer escaping of "/" (~1) and "~" (~0) in keys', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    await must(cluster.create(widget(namespace, name, { size: 1 }, { labels: { keep: 'me' } })));
    const patched = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [
          { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'shop' },
          { op: 'add', path: '/spec/odd~0key~1x', value: 'v' },
          { op: 'test', path: '/spec/odd~0key~1x', value: 'v' },
        ],
      }),
    );
    expect(patched.metadata.labels).toEqual({ keep: 'me', 'app.kubernetes.io/name': 'shop' });
    expect((patched.spec as Record<string, unknown>)['odd~key/x']).toBe('v');
    const removed = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'json',
        operations: [{ op: 'remove', path: '/metadata/labels/app.kubernetes.io~1name' }],
      }),
    );
    expect(removed.metadata.labels).toEqual({ keep: 'me' });
  });

  it('JSON Patch: a resourceVersion in the patch is a precondition (stale → Conflict 409)', async () => {
    const { cluster, namespace } = env();
    const name = unique('cm');
    const created = await must(cluster.create(configMap(namespace, name, { v: '1' })));
    await must(cluster.patch(configMapRef(namespace, name), { type: 'merge', body: { data: { v: '2' } } }));
    const stale = [
      { op: 'replace' as const, path: '/metadata/resourceVersion', value: created.metadata.resourceVersion ?? '' },
      { op: 'replace' as const, path: '/data/v', value: 'stale' },
    ];
    expectError(
      await failure(cluster.patch(configMapRef(namespace, name), { type: 'json', operations: stale })),
      'Conflict',
      409,
    );
    const read = await must(cluster.get(configMapRef(namespace, name)));
    expect(O.isSome(read) && read.value.data).toEqual({ v: '2' });
  });

  it('merge patch: objects merge, null removes, lists are replaced whole, labels merge', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    await must(
      cluster.create(
        widget(
          namespace,
          name,
          { size: 1, color: 'red', parts: ['a', 'b'], nested: { x: 1, y: 2 } },
          { labels: { a: '1', b: '2' } },
        ),
      ),
    );
    const patched = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'merge',
        body: {
          metadata: { labels: { b: null, c: '3' } },
          spec: { color: null, parts: ['z'], nested: { y: 20, z: 30 } },
        },
      }),
    );
    expect(patched.spec).toEqual({ size: 1, tier: 'standard', parts: ['z'], nested: { x: 1, y: 20, z: 30 } });
    expect(patched.metadata.labels).toEqual({ a: '1', c: '3' });
  });

  it('merge patch: null members inside a new list of objects are pruned, null elements stay; a list replacing an object is kept as sent', async () => {
    const { cluster, namespace } = env();
    const name = unique('w');
    await must(cluster.create(widget(namespace, name, { size: 1, shape: { round: true }, items: 'scalar' })));
    const patched = await must(
      cluster.patch(widgetRef(namespace, name), {
        type: 'merge',
        body: {
          spec: {
            parts: [{ name: 'a', image: null, nested: { keep: 1, drop: null } }, null],
            items: [{ name: 'b', gone: null }],
            shape: [{ name: 'c', kept: null }],
          },
        },
      }),
    );
    expect(patched.spec).toEqual({
      size: 1,
      tier: 'standard',
      parts: [{ name: 'a', nested: { keep: 1 } }, null],
      items: [{ name: 'b' }],
      shape: [{ name: 'c', kept: null }],
    });
  });

  it('server-side apply creates a missing object, then merges what is applied; fields of other writers stay', async () => {
    const { cluster, namespace } = env();
    const name = unique('cm');
    const ref = configMapRef(namespace, name);
    const applied = await must(
      cluster.patch(ref, { type: 'apply', fieldManager: 'contract', body: configMap(namespace, name, { a: '1' }) }),
    );
    expect(applied.data).toEqual({ a: '1' });
    await must(cluster.patch(ref, { type: 'merge', body: { data: { other: 'writer' } } }));
    const again = await must(
      cluster.patch(ref, {
        type: 'apply',
        fieldManager: 'contract',
        body: configMap(namespace, name, { a: '2', b: '3' }),
      }),
    );
    expect(again.data).toEqual({ a: '2', b: '3', other: 'writer' });
  });
};
