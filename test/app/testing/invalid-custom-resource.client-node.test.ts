/**
 * The kit (issue 34 item 4): a controller that writes an invalid custom resource gets kube-apiserver's
 * 422, as on a cluster: through the Promise facade (a `ClusterCallError` with the causes) and over
 * HTTP with @kubernetes/client-node (a `Status` with `details.causes`). The controller scales a
 * `Widget` to twice its `Scaler`'s target; the CRD allows at most 10 replicas, and a CEL rule
 * refuses a `mode` change (transition rule). The texts are the real server's (checked by
 * test/integration/custom-resource-differential.test.ts).
 */
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMemoryCluster,
  isClusterCallError,
  promiseCluster,
  serveMemoryCluster,
  type PromiseCluster,
  type ServedCluster,
} from '../../../app/testing/index.js';
import { crdWithSchema } from '../../support/crd.js';

const WIDGET_CRD = crdWithSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' }],
      properties: {
        replicas: { type: 'integer', minimum: 0, maximum: 10 },
        mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
      },
    },
  },
});

/** The controller under test: one pass writes the Widget `name` with twice the target. */
const scaleWidget = async (api: PromiseCluster, name: string, target: number): Promise<void> => {
  const existing = await api.get({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name });
  const spec = { replicas: target * 2 };
  if (existing === undefined)
    await api.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });
  else await api.update({ ...existing, spec: { ...(existing.spec as object), ...spec } });
};

const world = async (): Promise<{ api: PromiseCluster; cluster: ReturnType<typeof createMemoryCluster> }> => {
  const cluster = createMemoryCluster();
  const api = promiseCluster(cluster);
  await api.create(WIDGET_CRD);
  await cluster.settle();
  return { api, cluster };
};

describe('a controller writing an invalid custom resource (kit)', () => {
  let served: ServedCluster | undefined;
  afterEach(async () => served?.close());

  it('gets the 422 Invalid with the real causes through the Promise facade', async () => {
    const { api } = await world();
    await scaleWidget(api, 'w', 3);
    const refused = await scaleWidget(api, 'w', 6).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isClusterCallError(refused, 'Invalid')).toBe(true);
    if (!isClusterCallError(refused, 'Invalid')) return;
    expect(refused.error.code).toBe(422);
    expect(refused.error.message).toBe(
      'Widget.example.com "w" is invalid: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 10',
    );
    expect(refused.error.causes).toEqual([
      {
        field: 'spec.replicas',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 12: spec.replicas in body should be less than or equal to 10',
      },
    ]);
    const stored = await api.get({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' });
    expect(stored?.spec).toEqual({ replicas: 6, mode: 'fast' });
  });

  it('gets the same Status over HTTP with client-node, and a transition rule refusal', async () => {
    const { api, cluster } = await world();
    await scaleWidget(api, 'w', 1);
    served = await serveMemoryCluster(cluster);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(served.kubeconfig);
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const target = { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' };
    const statusOf = async (write: Promise<unknown>): Promise<{ code: number; body: unknown }> =>
      write.then(
        () => ({ code: 200, body: undefined }),
        (error: unknown) =>
          error instanceof ApiException
            ? { code: error.code, body: JSON.parse(String(error.body)) }
            : { code: 0, body: error },
      );
    const tooMany = await statusOf(
      custom.createNamespacedCustomObject({
        ...target,
        body: {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'big' },
          spec: { replicas: 11, mode: 'medium' },
        },
      }),
    );
    expect(tooMany.code).toBe(422);
    expect(tooMany.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      details: { name: 'big', group: 'example.com', kind: 'Widget' },
    });
    expect(JSON.stringify(tooMany.body)).toContain(
      'Unsupported value: \\"medium\\": supported values: \\"fast\\", \\"slow\\"',
    );
    const stored = await api.get({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' });
    const changed = await statusOf(
      custom.replaceNamespacedCustomObject({
        ...target,
        name: 'w',
        body: { ...stored, spec: { replicas: 2, mode: 'slow' } },
      }),
    );
    expect(changed.code).toBe(422);
    expect(changed.body).toMatchObject({
      message: 'Widget.example.com "w" is invalid: spec: Invalid value: "object": mode is immutable',
      details: {
        causes: [{ field: 'spec', reason: 'FieldValueInvalid', message: 'Invalid value: "object": mode is immutable' }],
      },
    });
  });
});
