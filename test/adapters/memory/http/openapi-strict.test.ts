/**
 * The memory API endpoint's OpenAPI documents (`/openapi/v2`, `/openapi/v3`, built from the same
 * schemas as offline validation, CRDs included) and strict field validation: what `kreconcile
 * validate --kubeconfig` reads from it, and `fieldValidation=Strict` refusing unknown fields on
 * create, update and patch as kube-apiserver does (the default keeps accepting them).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchOpenApiDocuments } from '../../../../app/cli/live/openapi.js';
import { run } from '../../../../app/cli/main.js';
import { testIo } from '../../../cli/support/run-cli.js';
import { endpoint, type Endpoint } from './http-support.js';

const open: Endpoint[] = [];
const serve = async (): Promise<Endpoint> => {
  const served = await endpoint();
  open.push(served);
  return served;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});
const dir = mkdtempSync(join(tmpdir(), 'kr-memory-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const deployment = (spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    ...spec,
  },
});

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.toys.example' },
  spec: {
    group: 'toys.example',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

describe('memory API endpoint: OpenAPI documents', () => {
  it('serves the /openapi/v3 index and per group-version documents, CRDs included, and /openapi/v2', async () => {
    const target = await serve();
    expect(
      (
        await target.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          method: 'POST',
          body: gadgetCrd,
        })
      ).status,
    ).toBe(201);
    const index = await target.request('/openapi/v3');
    expect(index.status).toBe(200);
    expect(index.json.paths['apis/apps/v1'].serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/,
    );
    expect(index.json.paths['api/v1']).toBeDefined();
    expect(index.json.paths['apis/toys.example/v1']).toBeDefined();
    const apps = await target.request(index.json.paths['apis/apps/v1'].serverRelativeURL);
    expect(apps.json.components.schemas['io.k8s.api.apps.v1.Deployment']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
      properties: { spec: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }] } },
    });
    const gadgets = await target.request('/openapi/v3/apis/toys.example/v1');
    expect(gadgets.json.components.schemas['example.toys.v1.Gadget']).toMatchObject({
      properties: { spec: { properties: { size: { type: 'integer' } } } },
    });
    const v2 = await target.request('/openapi/v2');
    expect(v2.json.swagger).toBe('2.0');
    expect(v2.json.definitions['io.k8s.api.core.v1.ConfigMap']).toMatchObject({
      'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'ConfigMap' }],
      properties: { metadata: { allOf: [{ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] } },
    });
    expect((await target.request('/openapi/v3/apis/nothing.example/v1')).status).toBe(404);
  });

  it('kreconcile validate --kubeconfig reads them and reports a typo and a wrong type', async () => {
    const target = await serve();
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, target.kubeconfig);
    const app = join(dir, 'app.yaml');
    writeFileSync(
      app,
      JSON.stringify({
        apiVersion: 'kreconcile.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'web', namespace: 'shop' },
        spec: { manifest: [deployment({ replica: 3, revisionHistoryLimit: 'ten' })] },
      }),
    );
    const { io, err } = testIo();
    const code = await run(['validate', '-f', app, '--kubeconfig', kubeconfig], {
      ...io,
      fetchOpenApi: fetchOpenApiDocuments,
    });
    expect(code).toBe(1);
    const lines = err
      .join('')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      'spec.manifest[0].spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean `replicas`?',
    );
    expect(lines[1]).toContain(
      `spec.manifest[0].spec.revisionHistoryLimit: expected integer, got string "ten" (the cluster's schema of apps/v1 Deployment)`,
    );
  });
});

describe('memory API endpoint: fieldValidation', () => {
  const collection = '/apis/apps/v1/namespaces/default/deployments';

  it('Strict refuses unknown fields on create, update and patch, naming each; the default accepts them', async () => {
    const target = await serve();
    const refused = await target.request(`${collection}?fieldValidation=Strict`, {
      method: 'POST',
      body: deployment({
        replica: 3,
        template: { spec: { containers: [{ name: 'web', image: 'nginx', imagePullPolicyy: 'Always' }] } },
      }),
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message:
        'strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy", unknown field "spec.replica"',
    });
    expect((await target.request(`${collection}/web`)).status).toBe(404);
    expect(
      (await target.request(`${collection}?fieldValidation=Strict`, { method: 'POST', body: deployment() })).status,
    ).toBe(201);

    const patched = await target.request(`${collection}/web?fieldValidation=Strict`, {
      method: 'PATCH',
      body: { spec: { replicaz: 2 } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(422);
    expect(patched.json.message).toMatch(/strict decoding error: unknown field "spec\.replicaz"$/);
    expect((await target.request(`${collection}/web`)).json.spec).not.toHaveProperty('replicaz');

    const current = (await target.request(`${collection}/web`)).json;
    const updated = await target.request(`${collection}/web?fieldValidation=Strict`, {
      method: 'PUT',
      body: { ...current, metadata: { ...current.metadata, lables: { a: 'b' } } },
    });
    expect(updated.status).toBe(400);
    expect(updated.json.message).toBe('strict decoding error: unknown field "metadata.lables"');

    const warned = await target.request(`${collection}/web`, {
      method: 'PATCH',
      body: { spec: { replicaz: 2 } },
      contentType: 'application/merge-patch+json',
    });
    expect(warned.status).toBe(200);
    const bad = await target.request(`${collection}?fieldValidation=Loose`, { method: 'POST', body: deployment() });
    expect(bad.status).toBe(400);
  });
});
