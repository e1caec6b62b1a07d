/**
 * Typed objects for operator authors: @kubernetes/client-node's models are assignable to the
 * runtime's structural types (checked by the type checker: a regression fails `npm run typecheck`),
 * and what they admit is still decoded where it enters (`desired`'s result, the test kit's writes).
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type {
  KubernetesObject as ClientNodeObject,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Deployment,
  V1ObjectMeta,
  V1Secret,
} from '@kubernetes/client-node';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { primaryOf } from '../../../app/runtime/primary.js';
import type {
  DesiredState,
  KubernetesObject,
  KubernetesObjectMeta,
  ManifestObject,
  PrimaryObject,
  PrimaryReconciler,
} from '../../../app/runtime/index.js';
import { createMemoryCluster, isClusterCallError, promiseCluster } from '../../../app/testing/index.js';
import type { JsonValue, Resource } from '../../../core/internal.js';

const deployment: V1Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' }, creationTimestamp: new Date('2026-01-02T03:04:05Z') },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
};

describe('client-node models against the runtime types', () => {
  it('are assignable: models, their metadata and client-node’s own KubernetesObject', () => {
    expectTypeOf<V1Deployment>().toExtend<KubernetesObject>();
    expectTypeOf<V1ConfigMap>().toExtend<ManifestObject>();
    expectTypeOf<V1Secret>().toExtend<ManifestObject>();
    expectTypeOf<V1CustomResourceDefinition>().toExtend<ManifestObject>();
    expectTypeOf<V1ObjectMeta>().toExtend<KubernetesObjectMeta>();
    expectTypeOf<ClientNodeObject>().toExtend<KubernetesObject>();
    // What the kit returns is a KubernetesObject too (not a client-node model: timestamps stay RFC 3339 text, not
    // Date).
    expectTypeOf<Resource>().toExtend<KubernetesObject>();
    expectTypeOf({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'b' },
    }).toExtend<ManifestObject>();
    expectTypeOf({ manifest: [deployment] }).toExtend<DesiredState>();
  });

  it('still reject what is not an object of that shape', () => {
    expectTypeOf({ apiVersion: 3 }).not.toExtend<ManifestObject>();
    expectTypeOf({ metadata: { labels: { a: 1 } } }).not.toExtend<ManifestObject>();
  });
});

const GreetingSpec = t.type({ message: t.string, replicas: t.union([t.number, t.undefined]) });

const greeting = (spec: JsonValue | undefined): Resource => {
  const object: Resource = {
    apiVersion: 'example.kreconcile.io/v1',
    kind: 'Greeting',
    metadata: { name: 'g', namespace: 'ns' },
  };
  return spec === undefined ? object : { ...object, spec };
};

describe('a typed reconciler', () => {
  const seen: Array<PrimaryObject<t.TypeOf<typeof GreetingSpec>>> = [];
  const reconciler: PrimaryReconciler<t.TypeOf<typeof GreetingSpec>> = {
    apiVersion: 'example.kreconcile.io/v1',
    kind: 'Greeting',
    spec: GreetingSpec,
    desired: (primary) => {
      seen.push(primary);
      const configMap: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: primary.metadata.name },
        data: { message: primary.spec.message },
      };
      return {
        manifest: [configMap, { ...deployment, spec: { ...deployment.spec!, replicas: primary.spec.replicas } }],
      };
    },
  };
  const primary = primaryOf(reconciler);

  it('sees the decoded spec and returns client-node models, decoded as JSON (a Date as RFC 3339 text)', () => {
    const decoded = primary.decode(greeting({ message: 'hi', replicas: 2 }));
    expect(seen.at(-1)?.spec).toEqual({ message: 'hi', replicas: 2 });
    expect(E.isRight(decoded) && decoded.right.spec.manifest).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g' }, data: { message: 'hi' } },
      {
        ...deployment,
        metadata: { ...deployment.metadata, creationTimestamp: '2026-01-02T03:04:05.000Z' },
        spec: { ...deployment.spec, replicas: 2 },
      },
    ]);
  });

  it('never calls desired with a spec that does not decode: the object stalls naming the field', () => {
    const calls = seen.length;
    const decoded = primary.decode(greeting({ message: 7 }));
    expect(seen.length).toBe(calls);
    expect(E.isLeft(decoded) && decoded.left.map((issue) => issue.path)).toEqual(['spec.message']);
    const missing = primary.decode(greeting(undefined));
    expect(E.isLeft(missing) && missing.left.map((issue) => issue.path)).toEqual(['spec']);
  });

  it('reports a returned value JSON would silently change (a function, NaN) instead of dropping it', () => {
    const lossy = primaryOf({
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      desired: (g) => ({
        manifest: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.metadata.name }, data: { n: Number.NaN } },
        ],
      }),
    }).decode(greeting({}));
    expect(E.isLeft(lossy) && lossy.left[0]?.message).toContain('is not JSON at desired.manifest[0].data.n: NaN');
  });
});

describe('the test kit takes client-node models', () => {
  it('creates a V1ConfigMap as given, and rejects one without a name as Invalid before any call', async () => {
    const api = promiseCluster(createMemoryCluster());
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default' },
      data: { a: 'b' },
    };
    const created = await api.create(configMap);
    expect(created.data).toEqual({ a: 'b' });
    const nameless: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default' } };
    const rejected = await api.create(nameless).catch((error: unknown) => error);
    expect(isClusterCallError(rejected, 'Invalid')).toBe(true);
    expect(String(rejected)).toContain('metadata.name');
  });
});
