/** Default observer schemas (docs/behaviour.md §3) and the mangled schema's order. */
import { describe, it, expect } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  generateDefaultObserverSchema,
  validateObserverSchema,
  type ObserverSchema,
  type Resource,
} from '../../core/internal.js';

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});

const deployment: Resource = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', labels: { 'app.kubernetes.io/name': 'web' } },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          { name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], env: [] },
          { name: 'sidecar', image: 'envoy', args: null },
        ],
      },
    },
  },
};

describe('generateDefaultObserverSchema', () => {
  it('observes every field written, nothing else; lists get m = M = length; namespace becomes null', () => {
    expect(generateDefaultObserverSchema({ manifest: [deployment], observerSchema: undefined })).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: null, labels: { 'app.kubernetes.io/name': null } },
        spec: {
          replicas: null,
          template: {
            spec: {
              containers: [
                { name: null, image: null, ports: [{ containerPort: null }, control(1, 1)], env: [control(0, 0)] },
                { name: null, image: null, args: null },
                control(2, 2),
              ],
            },
          },
        },
      },
    ]);
  });

  it('generates schemas that pass validation', () => {
    const schemas = generateDefaultObserverSchema({ manifest: [deployment], observerSchema: undefined });
    expect(E.isRight(validateObserverSchema({ manifest: [deployment], observerSchema: schemas }))).toBe(true);
  });

  it('an empty list gets {m: 0, M: 0}: nothing about it is enforced', () => {
    const [schema] = generateDefaultObserverSchema({
      manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { list: [] } }],
      observerSchema: [],
    });
    expect(schema?.data).toEqual({ list: [control(0, 0)] });
  });

  it('a LoadBalancer Service also observes status.loadBalancer.ingress (camelCase)', () => {
    const service: Resource = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    };
    const [schema] = generateDefaultObserverSchema({ manifest: [service], observerSchema: [] });
    expect(schema).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: null, ports: [{ port: null }, control(1, 1)] },
      status: { loadBalancer: { ingress: null } },
    });
  });

  it('merges the LoadBalancer status into a status written in the manifest', () => {
    const service: Resource = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'LoadBalancer' },
      status: { loadBalancer: { other: 1 }, phase: 'x' },
    };
    const [schema] = generateDefaultObserverSchema({ manifest: [service], observerSchema: [] });
    expect(schema?.status).toEqual({ loadBalancer: { other: null, ingress: null }, phase: null });
  });

  it('a ClusterIP Service observes no status', () => {
    const service: Resource = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'ClusterIP' },
    };
    expect(generateDefaultObserverSchema({ manifest: [service], observerSchema: [] })[0]?.status).toBeUndefined();
  });

  it("custom schemas first in the user's order, then generated ones in manifest order; no default for a covered resource", () => {
    const a: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: '1' } };
    const b: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { y: '2' } };
    const c: Resource = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } };
    const customC: ObserverSchema = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c' } };
    const customA: ObserverSchema = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: null };
    expect(generateDefaultObserverSchema({ manifest: [a, b, c], observerSchema: [customC, customA] })).toEqual([
      customC,
      customA,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { y: null } },
    ]);
  });

  it('keys with `/` and `~` are observed as written', () => {
    const resource: Resource = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', annotations: { 'a~b/c': 'x' } },
      data: { 'x/y': '1' },
    };
    const [schema] = generateDefaultObserverSchema({ manifest: [resource], observerSchema: [] });
    expect(schema).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', annotations: { 'a~b/c': null } },
      data: { 'x/y': null },
    });
  });
});
