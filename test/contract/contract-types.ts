/**
 * Contract: a built-in object whose field has the wrong JSON type (`data: 5` on a ConfigMap,
 * `replicas: "3"` on a Deployment) is refused on every write path, and nothing is stored. The
 * server decodes into the Go type first, so the answer depends on the path: create and update
 * 400 BadRequest (`… cannot be handled as a …`), merge and JSON patch 422 Invalid on the field
 * `patch`, server-side apply 500 InternalError (`failed to create typed patch object` /
 * `failed to convert new object`). What it stores is decoded too: bytes re-encoded, a null
 * string in a map as "". Next to them, numbers of the right type but out of range are validated
 * (422 Invalid, several causes in brackets).
 */
import * as O from 'fp-ts/lib/Option.js';
import { expect, it } from 'vitest';
import type { JsonObject } from '../../core/json/json.js';
import type { ObjectRef, Resource } from '../../core/model/resource.js';
import type { Cluster, Patch } from '../../core/ports/cluster.js';
import type { ClusterError } from '../../core/ports/errors.js';
import {
  expectError,
  failure,
  must,
  unique,
  widget,
  widgetApiVersion,
  widgetRef,
  type ContractEnv,
} from './contract-support.js';

type Built = { readonly object: Resource; readonly ref: ObjectRef };

const core = (kind: string, namespace: string, name: string, body: JsonObject): Built => ({
  object: { apiVersion: 'v1', kind, metadata: { name, namespace }, ...body },
  ref: { apiVersion: 'v1', kind, namespace, name },
});

const deployment = (
  namespace: string,
  name: string,
  replicas: unknown = 1,
  container: JsonObject = {},
  selector: unknown = name,
): Built => ({
  object: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: selector } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox:1.36', ...container }] },
      },
    },
  } as Resource,
  ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name },
});

const podSpec = (container: JsonObject): JsonObject => ({
  restartPolicy: 'Never',
  containers: [{ name: 'main', image: 'busybox:1.36', ...container }],
});

const batch = (kind: 'Job' | 'CronJob', namespace: string, name: string, spec: JsonObject): Built => ({
  object: { apiVersion: 'batch/v1', kind, metadata: { name, namespace }, spec },
  ref: { apiVersion: 'batch/v1', kind, namespace, name },
});

const service = (namespace: string, name: string, port: unknown = 80): Built =>
  core('Service', namespace, name, { spec: { selector: { app: name }, ports: [{ port }] } as JsonObject });

/** What a create or update with a wrong type answers: 400, naming kind, version and the Go field. */
const cannotBeHandled = (kind: string, decodeError: string): string =>
  `${kind} in version "v1" cannot be handled as a ${kind}: ${decodeError}`;

const unmarshal = (what: string, field: string, type: string): string =>
  `json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`;

/**
 * Merge and JSON patch: 422 on the field `patch`, whose value (the patched object, quoted by the
 * server) the adapters cut out (it may hold Secret values, issue 19), then the decoding error.
 */
const expectPatchRefused = (error: ClusterError, decodeError: string, secret = false): void => {
  // A Secret's quoted invalid value is its value: masked whatever it looks like.
  const value = secret ? '(sensitive value)' : '"(object redacted)"';
  expectError(error, 'Invalid', 422);
  expect(error.message).toBe(` "" is invalid: patch: Invalid value: ${value}: ${decodeError}`);
  expect(error.causes).toEqual([
    { field: 'patch', reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${decodeError}` },
  ]);
};

/** An apply answer listing several wrong fields: `<head>: errors:` then one indented line each, in any order. */
const expectListed = (error: ClusterError, head: string, lines: ReadonlyArray<string>): void => {
  const [first, ...listed] = error.message.split('\n  ');
  expect(first).toBe(`${head}: errors:`);
  expect([...listed].sort()).toEqual([...lines].sort());
};

const expectAbsent = async (cluster: Cluster, ref: ObjectRef): Promise<void> => {
  expect(await must(cluster.get(ref))).toEqual(O.none);
};

/** Creates the valid object, lets `write` fail, and checks the stored object did not change. */
const refusedOnStored = async (
  cluster: Cluster,
  built: Built,
  write: (stored: Resource) => Promise<ClusterError>,
): Promise<ClusterError> => {
  const stored = await must(cluster.create(built.object));
  const refused = await write(stored);
  expect(await must(cluster.get(built.ref))).toEqual(O.some(stored));
  return refused;
};

const patchOf = (cluster: Cluster, ref: ObjectRef, patch: Patch) => failure(cluster.patch(ref, patch));

const apply = (body: JsonObject, force = true): Patch => ({
  type: 'apply',
  fieldManager: 'contract-types',
  force,
  body: body as Resource,
});

export const typesContract = (env: () => ContractEnv): void => {
  const createCases: ReadonlyArray<{
    readonly title: string;
    readonly build: (ns: string, name: string) => Built;
    readonly message: string;
  }> = [
    {
      title: 'ConfigMap data that is no map',
      build: (ns, n) => core('ConfigMap', ns, n, { data: 5 }),
      message: cannotBeHandled('ConfigMap', unmarshal('number', 'ConfigMap.data', 'map[string]string')),
    },
    {
      title: 'a ConfigMap data value that is no string',
      build: (ns, n) => core('ConfigMap', ns, n, { data: { a: 5 } }),
      message: cannotBeHandled('ConfigMap', unmarshal('number', 'ConfigMap.data', 'string')),
    },
    {
      title: 'ConfigMap binaryData that is no base64',
      build: (ns, n) => core('ConfigMap', ns, n, { binaryData: { a: 'not base64!' } }),
      message: cannotBeHandled('ConfigMap', 'illegal base64 data at input byte 3'),
    },
    {
      title: 'a ConfigMap binaryData value that is no string',
      build: (ns, n) => core('ConfigMap', ns, n, { binaryData: { a: 5 } }),
      message: cannotBeHandled('ConfigMap', unmarshal('number', 'ConfigMap.binaryData', '[]uint8')),
    },
    {
      title: 'Secret data without its padding',
      build: (ns, n) => core('Secret', ns, n, { data: { a: 'YWJ' } }),
      message: cannotBeHandled('Secret', 'illegal base64 data at input byte 0'),
    },
    {
      title: 'a Secret stringData value that is no string',
      build: (ns, n) => core('Secret', ns, n, { stringData: { a: 5 } }),
      message: cannotBeHandled('Secret', unmarshal('number', 'Secret.stringData', 'string')),
    },
    {
      title: 'a label value that is no string',
      build: (ns, n) => core('ConfigMap', ns, n, { metadata: { name: n, namespace: ns, labels: { a: 5 } } }),
      message: cannotBeHandled('ConfigMap', unmarshal('number', 'ObjectMeta.metadata.labels', 'string')),
    },
    {
      title: 'an annotation value that is no string',
      build: (ns, n) => core('ConfigMap', ns, n, { metadata: { name: n, namespace: ns, annotations: { a: true } } }),
      message: cannotBeHandled('ConfigMap', unmarshal('bool', 'ObjectMeta.metadata.annotations', 'string')),
    },
    {
      title: 'labels that are no map',
      build: (ns, n) => core('Secret', ns, n, { metadata: { name: n, namespace: ns, labels: 'a=b' } }),
      message: cannotBeHandled('Secret', unmarshal('string', 'ObjectMeta.metadata.labels', 'map[string]string')),
    },
    {
      title: 'a Service port that is a string',
      build: (ns, n) => service(ns, n, '80'),
      message: cannotBeHandled('Service', unmarshal('string', 'ServicePort.spec.ports.port', 'int32')),
    },
    {
      title: 'a Service port that is no integer',
      build: (ns, n) => service(ns, n, 80.5),
      message: cannotBeHandled('Service', unmarshal('number 80.5', 'ServicePort.spec.ports.port', 'int32')),
    },
    {
      title: 'Deployment replicas that are a string',
      build: (ns, n) => deployment(ns, n, '3'),
      message: cannotBeHandled('Deployment', unmarshal('string', 'DeploymentSpec.spec.replicas', 'int32')),
    },
    {
      title: 'an env value that is a number (pod template)',
      build: (ns, n) => deployment(ns, n, 1, { env: [{ name: 'PORT', value: 8080 }] }),
      message: cannotBeHandled(
        'Deployment',
        unmarshal('number', 'EnvVar.spec.template.spec.containers.env.value', 'string'),
      ),
    },
    {
      title: 'a containerPort that is a string',
      build: (ns, n) => deployment(ns, n, 1, { ports: [{ containerPort: '80' }] }),
      message: cannotBeHandled(
        'Deployment',
        unmarshal('string', 'ContainerPort.spec.template.spec.containers.ports.containerPort', 'int32'),
      ),
    },
    {
      title: 'container args that are no strings',
      build: (ns, n) => deployment(ns, n, 1, { args: ['--port', 80] }),
      message: cannotBeHandled(
        'Deployment',
        unmarshal('number', 'Container.spec.template.spec.containers.args', 'string'),
      ),
    },
    {
      title: 'a selector label that is a number',
      build: (ns, n) => deployment(ns, n, 1, {}, 5),
      message: cannotBeHandled('Deployment', unmarshal('number', 'LabelSelector.spec.selector.matchLabels', 'string')),
    },
    {
      title: 'a Pod image that is a number',
      build: (ns, n) => core('Pod', ns, n, { spec: podSpec({ image: 5 }) }),
      message: cannotBeHandled('Pod', unmarshal('number', 'Container.spec.containers.image', 'string')),
    },
    {
      title: 'a Job backoffLimit that is a string',
      build: (ns, n) => batch('Job', ns, n, { backoffLimit: '3', template: { spec: podSpec({}) } }),
      message: cannotBeHandled('Job', unmarshal('string', 'JobSpec.spec.backoffLimit', 'int32')),
    },
    {
      title: 'a CronJob schedule that is a number',
      build: (ns, n) =>
        batch('CronJob', ns, n, { schedule: 5, jobTemplate: { spec: { template: { spec: podSpec({}) } } } }),
      message: cannotBeHandled('CronJob', unmarshal('number', 'CronJobSpec.spec.schedule', 'string')),
    },
    {
      title: 'Deployment replicas beyond an int32',
      build: (ns, n) => deployment(ns, n, 2 ** 32),
      message: cannotBeHandled('Deployment', unmarshal(`number ${2 ** 32}`, 'DeploymentSpec.spec.replicas', 'int32')),
    },
  ];

  for (const { title, build, message } of createCases) {
    it(`create: ${title} is 400 BadRequest naming the Go field; nothing is stored`, async () => {
      const { cluster, namespace } = env();
      const built = build(namespace, unique('typed'));
      const refused = await failure(cluster.create(built.object));
      expectError(refused, 'BadRequest', 400);
      expect(refused.message).toBe(message);
      await expectAbsent(cluster, built.ref);
    });
  }

  it('create: a name that is no string is 400 BadRequest; nothing is stored', async () => {
    const { cluster, namespace } = env();
    const marker = unique('typed');
    const refused = await failure(
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 7, namespace, labels: { marker } },
      } as unknown as Resource),
    );
    expectError(refused, 'BadRequest', 400);
    expect(refused.message).toBe(
      cannotBeHandled('ConfigMap', unmarshal('number', 'ObjectMeta.metadata.name', 'string')),
    );
    expect(
      (await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace, labelSelector: `marker=${marker}` })))
        .items,
    ).toEqual([]);
  });

  it('update: a wrong type is 400 BadRequest as on create; the stored object is unchanged', async () => {
    const { cluster, namespace } = env();
    const configMap = core('ConfigMap', namespace, unique('typed'), { data: { a: '1' } });
    const refused = await refusedOnStored(cluster, configMap, async (stored) =>
      failure(cluster.update({ ...stored, data: { a: 5 } })),
    );
    expectError(refused, 'BadRequest', 400);
    expect(refused.message).toBe(cannotBeHandled('ConfigMap', unmarshal('number', 'ConfigMap.data', 'string')));
    const secret = core('Secret', namespace, unique('typed'), { data: { a: 'YWJj' } });
    const badBytes = await refusedOnStored(cluster, secret, async (stored) =>
      failure(cluster.update({ ...stored, data: { a: 'YW Jj' } })),
    );
    expect(badBytes.message).toBe(cannotBeHandled('Secret', 'illegal base64 data at input byte 2'));
    const workload = deployment(namespace, unique('typed'));
    const replicas = await refusedOnStored(cluster, workload, async (stored) =>
      failure(cluster.update({ ...stored, spec: { ...(stored.spec as JsonObject), replicas: 2.5 } })),
    );
    expect(replicas.message).toBe(
      cannotBeHandled('Deployment', unmarshal('number 2.5', 'DeploymentSpec.spec.replicas', 'int32')),
    );
  });

  it('merge patch: a wrong type is 422 Invalid on the field patch; the stored object is unchanged', async () => {
    const { cluster, namespace } = env();
    const configMap = core('ConfigMap', namespace, unique('typed'), { data: { a: '1' } });
    expectPatchRefused(
      await refusedOnStored(cluster, configMap, () =>
        patchOf(cluster, configMap.ref, { type: 'merge', body: { data: { a: 5 } } }),
      ),
      unmarshal('number', 'ConfigMap.data', 'string'),
    );
    expectPatchRefused(
      await refusedOnStored(cluster, core('ConfigMap', namespace, unique('typed'), {}), (stored) =>
        patchOf(
          cluster,
          { ...configMap.ref, name: stored.metadata.name },
          { type: 'merge', body: { metadata: { labels: { a: 5 } } } },
        ),
      ),
      unmarshal('number', 'ObjectMeta.metadata.labels', 'string'),
    );
    const secret = core('Secret', namespace, unique('typed'), { data: { a: 'YWJj' } });
    expectPatchRefused(
      await refusedOnStored(cluster, secret, () =>
        patchOf(cluster, secret.ref, { type: 'merge', body: { data: { a: '!!' } } }),
      ),
      'illegal base64 data at input byte 0',
      true,
    );
    const svc = service(namespace, unique('typed'));
    expectPatchRefused(
      await refusedOnStored(cluster, svc, () =>
        patchOf(cluster, svc.ref, { type: 'merge', body: { spec: { ports: [{ port: '80' }] } } }),
      ),
      unmarshal('string', 'ServicePort.spec.ports.port', 'int32'),
    );
    const workload = deployment(namespace, unique('typed'));
    expectPatchRefused(
      await refusedOnStored(cluster, workload, () =>
        patchOf(cluster, workload.ref, { type: 'merge', body: { spec: { replicas: '3' } } }),
      ),
      unmarshal('string', 'DeploymentSpec.spec.replicas', 'int32'),
    );
    const withEnv = deployment(namespace, unique('typed'));
    expectPatchRefused(
      await refusedOnStored(cluster, withEnv, () =>
        patchOf(cluster, withEnv.ref, {
          type: 'merge',
          body: {
            spec: {
              template: {
                spec: { containers: [{ name: 'main', image: 'busybox:1.36', env: [{ name: 'PORT', value: 8080 }] }] },
              },
            },
          },
        }),
      ),
      unmarshal('number', 'EnvVar.spec.template.spec.containers.env.value', 'string'),
    );
  });

  it('merge patch: a name that is no string is 422 Invalid on the field patch', async () => {
    const { cluster, namespace } = env();
    const configMap = core('ConfigMap', namespace, unique('typed'), {});
    expectPatchRefused(
      await refusedOnStored(cluster, configMap, () =>
        patchOf(cluster, configMap.ref, { type: 'merge', body: { metadata: { name: 5 } } }),
      ),
      unmarshal('number', 'ObjectMeta.metadata.name', 'string'),
    );
  });

  it('JSON patch: a wrong type is 422 Invalid on the field patch; the stored object is unchanged', async () => {
    const { cluster, namespace } = env();
    const configMap = core('ConfigMap', namespace, unique('typed'), { data: { a: '1' } });
    expectPatchRefused(
      await refusedOnStored(cluster, configMap, () =>
        patchOf(cluster, configMap.ref, { type: 'json', operations: [{ op: 'replace', path: '/data', value: 5 }] }),
      ),
      unmarshal('number', 'ConfigMap.data', 'map[string]string'),
    );
    const svc = service(namespace, unique('typed'));
    expectPatchRefused(
      await refusedOnStored(cluster, svc, () =>
        patchOf(cluster, svc.ref, {
          type: 'json',
          operations: [{ op: 'replace', path: '/spec/ports/0/port', value: '80' }],
        }),
      ),
      unmarshal('string', 'ServicePort.spec.ports.port', 'int32'),
    );
    const workload = deployment(namespace, unique('typed'));
    expectPatchRefused(
      await refusedOnStored(cluster, workload, () =>
        patchOf(cluster, workload.ref, {
          type: 'json',
          operations: [{ op: 'replace', path: '/spec/replicas', value: 2.5 }],
        }),
      ),
      unmarshal('number 2.5', 'DeploymentSpec.spec.replicas', 'int32'),
    );
  });

  it('apply: a wrong type in the applied configuration is 500 (failed to create typed patch object); nothing changes', async () => {
    const { cluster, namespace } = env();
    const name = unique('typed');
    const configMap = core('ConfigMap', namespace, name, { data: { a: '1' } });
    const refused = await refusedOnStored(cluster, configMap, () =>
      patchOf(
        cluster,
        configMap.ref,
        apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 5 } }),
      ),
    );
    expectError(refused, 'Internal', 500);
    expect(refused.message).toBe(
      `failed to create typed patch object (${namespace}/${name}; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:5}`,
    );
    // Every wrong field is listed (in an order that changes between runs on the real server: Go map iteration).
    const several = await patchOf(
      cluster,
      configMap.ref,
      apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { b: true, a: 5 } },
        data: { a: 5 },
      }),
    );
    expectError(several, 'Internal', 500);
    expectListed(several, `failed to create typed patch object (${namespace}/${name}; /v1, Kind=ConfigMap)`, [
      '.data.a: expected string, got &value.valueUnstructured{Value:5}',
      '.metadata.labels.a: expected string, got &value.valueUnstructured{Value:5}',
      '.metadata.labels.b: expected string, got &value.valueUnstructured{Value:true}',
    ]);
    const workload = deployment(namespace, unique('typed'));
    const replicas = await refusedOnStored(cluster, workload, () =>
      patchOf(
        cluster,
        workload.ref,
        apply({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: workload.ref.name, namespace },
          spec: { replicas: '3' },
        }),
      ),
    );
    expectError(replicas, 'Internal', 500);
    expect(replicas.message).toBe(
      `failed to create typed patch object (${namespace}/${workload.ref.name}; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string`,
    );
    const before = await must(cluster.get(workload.ref));
    const containers = await patchOf(
      cluster,
      workload.ref,
      apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: workload.ref.name, namespace },
        spec: {
          template: {
            spec: {
              containers: [{ name: 'main', env: [{ name: 'PORT', value: 8080 }], ports: [{ containerPort: '80' }] }],
            },
          },
        },
      }),
    );
    expectError(containers, 'Internal', 500);
    expectListed(
      containers,
      `failed to create typed patch object (${namespace}/${workload.ref.name}; apps/v1, Kind=Deployment)`,
      [
        '.spec.template.spec.containers[name="main"].env[name="PORT"].value: expected string, got &value.valueUnstructured{Value:8080}',
        '.spec.template.spec.containers[name="main"].ports[containerPort="80",protocol="TCP"].containerPort: expected numeric (int or float), got string',
      ],
    );
    expect(await must(cluster.get(workload.ref))).toEqual(before);
    const svc = service(namespace, unique('typed'));
    const port = await refusedOnStored(cluster, svc, () =>
      patchOf(
        cluster,
        svc.ref,
        apply({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: svc.ref.name, namespace },
          spec: { ports: [{ port: '80' }] },
        }),
      ),
    );
    expect(port.message).toBe(
      `failed to create typed patch object (${namespace}/${svc.ref.name}; /v1, Kind=Service): .spec.ports[port="80",protocol="TCP"].port: expected numeric (int or float), got string`,
    );
  });

  it('apply: a number that is no integer, or bytes that are no base64, are 500 (failed to convert new object); nothing is stored', async () => {
    const { cluster, namespace } = env();
    const workload = deployment(namespace, unique('typed'));
    const replicas = await refusedOnStored(cluster, workload, () =>
      patchOf(
        cluster,
        workload.ref,
        apply({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: workload.ref.name, namespace },
          spec: { replicas: 2.5 },
        }),
      ),
    );
    expectError(replicas, 'Internal', 500);
    expect(replicas.message).toBe(
      `failed to convert new object (${namespace}/${workload.ref.name}; apps/v1, Kind=Deployment) to proper version: ` +
        'unable to convert unstructured object to apps/v1, Kind=Deployment: cannot convert float64 to int32',
    );
    // Apply that would create the object: refused the same way, and nothing is created.
    const name = unique('typed');
    const ref = { apiVersion: 'v1', kind: 'Secret', namespace, name };
    const bytes = await patchOf(
      cluster,
      ref,
      apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: { a: '!!' } }),
    );
    expectError(bytes, 'Internal', 500);
    expect(bytes.message).toBe(
      `failed to convert new object (${namespace}/${name}; /v1, Kind=Secret) to proper version: ` +
        'unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 0',
    );
    await expectAbsent(cluster, ref);
    const created = await patchOf(
      cluster,
      { ...ref, kind: 'ConfigMap' },
      apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 5 } }),
    );
    expectError(created, 'Internal', 500);
    await expectAbsent(cluster, { ...ref, kind: 'ConfigMap' });
  });

  it('apply: an integer beyond an int32 is stored wrapped around (the server converts without a range check)', async () => {
    const { cluster, namespace } = env();
    const workload = deployment(namespace, unique('typed'));
    await must(cluster.create(workload.object));
    const applied = await must(
      cluster.patch(
        workload.ref,
        apply({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: workload.ref.name, namespace },
          spec: { replicas: 2 ** 32 + 2 },
        }),
      ),
    );
    expect((applied.spec as JsonObject).replicas).toBe(2);
  });

  it("a custom resource's metadata is decoded on its own: 400 on create, 422 on merge patch, 500 on apply", async () => {
    const { cluster, namespace } = env();
    const name = unique('typed');
    const ref = widgetRef(namespace, name);
    const refused = await failure(cluster.create(widget(namespace, name, {}, { labels: { a: 5 } })));
    expectError(refused, 'BadRequest', 400);
    expect(refused.message).toBe(cannotBeHandled('Widget', unmarshal('number', 'ObjectMeta.labels', 'string')));
    await expectAbsent(cluster, ref);
    const stored = await must(cluster.create(widget(namespace, name, {})));
    expectPatchRefused(
      await patchOf(cluster, ref, { type: 'merge', body: { metadata: { name: 5 } } }),
      unmarshal('number', 'ObjectMeta.name', 'string'),
    );
    const applied = await patchOf(
      cluster,
      ref,
      apply({ apiVersion: widgetApiVersion, kind: 'Widget', metadata: { name, namespace, annotations: { a: true } } }),
    );
    expectError(applied, 'Internal', 500);
    expect(applied.message).toBe(
      `failed to create typed patch object (${namespace}/${name}; ${widgetApiVersion}, Kind=Widget): .metadata.annotations.a: expected string, got &value.valueUnstructured{Value:true}`,
    );
    expect(await must(cluster.get(ref))).toEqual(O.some(stored));
  });

  it('negative replicas: 422 Invalid naming spec.replicas, on create and on patch; nothing changes', async () => {
    const { cluster, namespace } = env();
    const built = deployment(namespace, unique('typed'), -1);
    const refused = await failure(cluster.create(built.object));
    expectError(refused, 'Invalid', 422);
    expect(refused.message).toBe(
      `Deployment.apps "${built.ref.name}" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
    );
    expect(refused.causes).toEqual([
      {
        field: 'spec.replicas',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: -1: must be greater than or equal to 0',
      },
    ]);
    await expectAbsent(cluster, built.ref);
    const patched = await refusedOnStored(cluster, deployment(namespace, built.ref.name), () =>
      patchOf(cluster, built.ref, { type: 'merge', body: { spec: { replicas: -2 } } }),
    );
    expect(patched.message).toBe(
      `Deployment.apps "${built.ref.name}" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0`,
    );
  });

  it('a Service port out of range: 422 Invalid for the port and the targetPort defaulted from it', async () => {
    const { cluster, namespace } = env();
    const built = service(namespace, unique('typed'), 99999);
    const refused = await failure(cluster.create(built.object));
    expectError(refused, 'Invalid', 422);
    const cause = 'Invalid value: 99999: must be between 1 and 65535, inclusive';
    expect(refused.message).toBe(
      `Service "${built.ref.name}" is invalid: [spec.ports[0].port: ${cause}, spec.ports[0].targetPort: ${cause}]`,
    );
    expect(refused.causes).toEqual([
      { field: 'spec.ports[0].port', reason: 'FieldValueInvalid', message: cause },
      { field: 'spec.ports[0].targetPort', reason: 'FieldValueInvalid', message: cause },
    ]);
    await expectAbsent(cluster, built.ref);
  });

  it('what is stored is decoded: bytes re-encoded (newlines dropped, padding bits cleared), a null string or bytes value in a map is ""', async () => {
    const { cluster, namespace } = env();
    const secret = core('Secret', namespace, unique('typed'), {
      data: { a: 'YWJj\n', b: 'YR==', c: null },
      stringData: { d: null },
    });
    const stored = await must(cluster.create(secret.object));
    expect(stored.data).toEqual({ a: 'YWJj', b: 'YQ==', c: '', d: '' });
    const patched = await must(cluster.patch(secret.ref, { type: 'merge', body: { data: { e: 'YR==\n' } } }));
    expect(patched.data).toEqual({ a: 'YWJj', b: 'YQ==', c: '', d: '', e: 'YQ==' });
    const name = unique('typed');
    const configMap = core('ConfigMap', namespace, name, {
      metadata: { name, namespace, labels: { x: null } },
      data: { a: null, b: 'x' },
      binaryData: { c: null },
    });
    const created = await must(cluster.create(configMap.object));
    expect([created.data, created.binaryData, created.metadata.labels]).toEqual([
      { a: '', b: 'x' },
      { c: '' },
      { x: '' },
    ]);
    expect(await must(cluster.get(configMap.ref))).toEqual(
      O.some(expect.objectContaining({ data: { a: '', b: 'x' } })),
    );
  });
};
