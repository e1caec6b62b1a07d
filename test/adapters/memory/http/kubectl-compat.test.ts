/**
 * What the memory endpoint answers the requests kubectl makes (client-go's typed clients, server-
 * side printing, scale, describe), and the real server's size limits. The same, end to end with
 * the real kubectl: test/cli/kubectl-session.test.ts. Answers checked against kube-apiserver 1.36.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { humanDuration } from '../../../../adapters/memory/http/printers/human-duration.js';
import { applicationCrd } from '../../../../app/manifests/crd.js';
import type { Resource } from '../../../../core/internal.js';
import { endpoint, type Endpoint } from './http-support.js';

const opened: Endpoint[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((target) => target.close()));
});
const serve = async (): Promise<Endpoint> => {
  const served = await endpoint({ workloads: true });
  opened.push(served);
  return served;
};

/** Raw request bytes and headers (protobuf bodies, Accept), answered as JSON. */
const raw = async (
  target: Endpoint,
  path: string,
  init: { method?: string; body?: Uint8Array; contentType?: string; accept?: string },
): Promise<{ status: number; json: any }> => {
  const response = await fetch(`${target.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${target.token}`,
      ...(init.contentType === undefined ? {} : { 'content-type': init.contentType }),
      ...(init.accept === undefined ? {} : { accept: init.accept }),
    },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  return { status: response.status, json: JSON.parse(await response.text()) };
};

// Protocol buffers as Go's marshaller writes them: varint keys, length-delimited fields.
const varint = (value: number): number[] => {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  return [...bytes, rest];
};
const bytesField = (number: number, bytes: Uint8Array | number[]): number[] => [
  ...varint((number << 3) | 2),
  ...varint(bytes.length),
  ...bytes,
];
const text = (number: number, value: string): number[] => bytesField(number, [...Buffer.from(value)]);
const message = (number: number, ...fields: number[][]): number[] => bytesField(number, fields.flat());
const envelope = (apiVersion: string, kind: string, raw: number[]): Uint8Array =>
  Uint8Array.from([
    ...Buffer.from('k8s\0', 'binary'),
    ...message(1, text(1, apiVersion), text(2, kind)),
    ...bytesField(2, raw),
    ...text(3, ''),
    ...text(4, ''),
  ]);
/** ObjectMeta as kubectl create writes it: every string field, empty or not, and a zero creationTimestamp. */
const objectMeta = (name: string, namespace: string): number[] =>
  message(1, text(1, name), text(2, ''), text(3, namespace), text(4, ''), text(5, ''), text(6, ''), message(8));

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('protobuf request bodies (kubectl create namespace/configmap/secret/deployment)', () => {
  it('decodes a Namespace and a ConfigMap with data and binaryData', async () => {
    const target = await serve();
    const namespace = envelope('v1', 'Namespace', [
      ...objectMeta('shop', ''),
      ...message(2),
      ...message(3, text(1, '')),
    ]);
    expect(
      (await raw(target, '/api/v1/namespaces', { method: 'POST', body: namespace, contentType: PROTOBUF })).status,
    ).toBe(201);
    const configMap = envelope('v1', 'ConfigMap', [
      ...objectMeta('settings', 'shop'),
      ...message(2, text(1, 'mode'), text(2, 'fast')),
      ...message(3, text(1, 'blob'), bytesField(2, [0, 1, 255])),
    ]);
    const created = await raw(target, '/api/v1/namespaces/shop/configmaps', {
      method: 'POST',
      body: configMap,
      contentType: PROTOBUF,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop' },
      data: { mode: 'fast' },
      binaryData: { blob: 'AAH/' },
    });
    expect(created.json.metadata.generateName).toBeUndefined();
  });

  it('creates a Deployment as kubectl create deployment sends it (client-go protobuf, from the real serializer)', async () => {
    const target = await serve();
    // Encoded by client-go's protobuf serializer: test/fixtures/protobuf (the Deployment `bare`, kubectl create's
    // shape).
    const fixtures: ReadonlyArray<{ protobuf: string; json: { metadata: { name: string } } }> = JSON.parse(
      readFileSync(new URL('../../../fixtures/protobuf/fixtures.json', import.meta.url), 'utf8'),
    );
    const bare = fixtures.find((fixture) => fixture.json.metadata.name === 'bare');
    const created = await raw(target, '/apis/apps/v1/namespaces/default/deployments', {
      method: 'POST',
      body: Buffer.from(bare?.protobuf ?? '', 'base64'),
      contentType: PROTOBUF,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      kind: 'Deployment',
      metadata: { name: 'bare', namespace: 'default' },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    });
  });

  it('refuses a kind it does not decode (a custom resource) with 415, and a body that is not an envelope with 400', async () => {
    const target = await serve();
    await target.memory.create(applicationCrd())();
    const application = envelope('kreconcile.io/v1alpha1', 'Application', objectMeta('web', 'default'));
    const refused = await raw(target, '/apis/kreconcile.io/v1alpha1/namespaces/default/applications', {
      method: 'POST',
      body: application,
      contentType: PROTOBUF,
    });
    expect(refused).toMatchObject({ status: 415, json: { reason: 'UnsupportedMediaType' } });
    expect(refused.json.message).toContain('send JSON');
    const garbage = await raw(target, '/api/v1/namespaces', {
      method: 'POST',
      body: Uint8Array.from([1, 2, 3]),
      contentType: PROTOBUF,
    });
    expect(garbage).toMatchObject({ status: 400, json: { reason: 'BadRequest' } });
  });
});

describe('Table responses (kubectl get)', () => {
  const TABLE =
    'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

  it("prints a custom resource with its CRD's printer columns", async () => {
    const target = await serve();
    await target.memory.create(applicationCrd())();
    await target.memory.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    await target.memory.create({
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { manifest: [] },
    })();
    await target.memory.patchStatus(
      { apiVersion: 'kreconcile.io/v1alpha1', kind: 'Application', namespace: 'shop', name: 'web' },
      {
        type: 'merge',
        // lastTransitionTime is required by the CRD: the server (and the memory server) refuses a condition without it.
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Reconciled',
                message: 'ok',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
          },
        },
      },
    )();
    const table = await raw(target, '/apis/kreconcile.io/v1alpha1/namespaces/shop/applications', { accept: TABLE });
    expect(table.status).toBe(200);
    expect(table.json.kind).toBe('Table');
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      'Name',
      'Ready',
      'Reason',
      'Age',
    ]);
    expect(table.json.rows).toHaveLength(1);
    expect(table.json.rows[0].cells.slice(0, 3)).toEqual(['web', 'True', 'Reconciled']);
    expect(table.json.rows[0].cells[3]).toMatch(/^\d+s$/);
    expect(table.json.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { namespace: 'shop' } });
  });

  it('prints a built-in kind with the real server columns, and answers plain JSON without the Table media type', async () => {
    const target = await serve();
    const table = await raw(target, '/api/v1/namespaces/default', { accept: TABLE });
    expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(table.json.rows[0].cells.slice(0, 2)).toEqual(['default', 'Active']);
    expect((await raw(target, '/api/v1/namespaces/default', { accept: 'application/json' })).json.kind).toBe(
      'Namespace',
    );
  });

  it.each([
    [5_000, '5s'],
    [119_000, '119s'],
    [200_000, '3m20s'],
    [600_000, '10m'],
    [3 * 3_600_000 + 60_000, '3h1m'],
    [10 * 3_600_000, '10h'],
    [3 * 86_400_000 + 3_600_000, '3d1h'],
    [30 * 86_400_000, '30d'],
    [-5_000, '<invalid>'],
  ])('shows an age of %i ms as %s, as kubectl does', (ms, shown) => {
    expect(humanDuration(ms)).toBe(shown);
  });
});

describe("the real server's size limits", () => {
  const configMap = (name: string, data: Record<string, string>): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data,
  });

  it('ConfigMap values together at most 1 MiB (keys not counted), on create and on patch', async () => {
    const target = await serve();
    const path = '/api/v1/namespaces/default/configmaps';
    expect(
      (await target.request(path, { method: 'POST', body: configMap('edge', { abc: 'x'.repeat(1048576) }) })).status,
    ).toBe(201);
    const over = await target.request(path, { method: 'POST', body: configMap('big', { a: 'x'.repeat(2 * 1048576) }) });
    expect(over).toMatchObject({
      status: 422,
      json: {
        reason: 'Invalid',
        message: 'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes',
        details: { kind: 'ConfigMap', causes: [{ reason: 'FieldValueTooLong', field: '[]' }] },
      },
    });
    const grown = await target.request(`${path}/edge`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { data: { more: 'y' } },
    });
    expect(grown.status).toBe(422);
  });

  it('Secret values (stringData merged in) together at most 1 MiB', async () => {
    const target = await serve();
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      data: { a: Buffer.alloc(1048576 - 5).toString('base64') },
      stringData: { b: 'yyyyyy' },
    };
    const refused = await target.request('/api/v1/namespaces/default/secrets', { method: 'POST', body: secret });
    expect(refused.json.message).toBe('Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes');
  });

  it("objects over etcd's 1.5 MiB: 500 from storage, after validation", async () => {
    const target = await serve();
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox',
            env: Array.from({ length: 18 }, (_, i) => ({ name: `E${i}`, value: 'x'.repeat(100_000) })),
          },
        ],
      },
    };
    const refused = await target.request('/api/v1/namespaces/default/pods', { method: 'POST', body: pod });
    expect(refused).toMatchObject({ status: 500, json: { message: 'etcdserver: request is too large' } });
    expect(target.memory.objects().some((o) => o.kind === 'Pod')).toBe(false);
  });

  it('request bodies over 3 MiB: 413 with the real message', async () => {
    const target = await serve();
    const refused = await target.request('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: configMap('huge', { a: 'x'.repeat(3_200_000) }),
    });
    expect(refused).toMatchObject({
      status: 413,
      json: { reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' },
    });
  });
});

describe('scale and describe', () => {
  it('reads and writes a Deployment through its scale subresource', async () => {
    const target = await serve();
    await target.request('/apis/apps/v1/namespaces/default/deployments', {
      method: 'POST',
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      },
    });
    const path = '/apis/apps/v1/namespaces/default/deployments/web/scale';
    expect((await target.request(path)).json).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { selector: 'app=web' },
    });
    const scaled = await target.request(path, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 5 } },
    });
    expect(scaled.json.spec).toEqual({ replicas: 5 });
    expect((await target.request('/apis/apps/v1/namespaces/default/deployments/web')).json.spec.replicas).toBe(5);
    const discovery = await target.request('/apis/apps/v1');
    expect(discovery.json.resources.map((r: { name: string }) => r.name)).toContain('deployments/scale');
  });

  it("lists an object's Events by involvedObject fields", async () => {
    const target = await serve();
    const event = (name: string, involved: string) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      involvedObject: { kind: 'ConfigMap', namespace: 'default', name: involved },
      reason: 'Changed',
      type: 'Normal',
    });
    for (const [name, involved] of [
      ['e1', 'a'],
      ['e2', 'b'],
    ] as const)
      await target.request('/api/v1/namespaces/default/events', { method: 'POST', body: event(name, involved) });
    const listed = await target.request(
      '/api/v1/namespaces/default/events?fieldSelector=involvedObject.namespace%3Ddefault,involvedObject.kind%3DConfigMap,involvedObject.name%3Da',
    );
    expect(listed.json.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual(['e1']);
    const refused = await target.request('/api/v1/namespaces/default/configmaps?fieldSelector=involvedObject.name%3Da');
    expect(refused.status).toBe(400);
  });
});
