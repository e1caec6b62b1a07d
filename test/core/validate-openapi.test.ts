/**
 * Manifest resources against OpenAPI v3 documents shaped like the API server's (every reference
 * wrapped in `allOf`, `oneOf` type alternatives, CRD extensions); the real server's documents are
 * exercised in test/integration/e2e-observer-markers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { openApiIssues, openApiPathOf, type JsonObject, type JsonValue } from '../../core/internal.js';

const ref = (name: string): JsonObject => ({ default: {}, allOf: [{ $ref: `#/components/schemas/${name}` }] });

/** A miniature apps/v1 document: Deployment → DeploymentSpec → PodTemplate → Container, with ObjectMeta. */
const apps: JsonObject = {
  components: {
    schemas: {
      'io.k8s.api.apps.v1.Deployment': {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'apps', kind: 'Deployment', version: 'v1' }],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: ref('ObjectMeta'),
          spec: ref('DeploymentSpec'),
          status: { type: 'object', properties: { replicas: { type: 'integer' } } },
        },
      },
      DeploymentSpec: {
        type: 'object',
        required: ['selector', 'template'],
        properties: {
          replicas: { type: 'integer', format: 'int32' },
          paused: { type: 'boolean' },
          selector: {
            type: 'object',
            properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
          },
          template: ref('PodTemplateSpec'),
        },
      },
      PodTemplateSpec: {
        type: 'object',
        properties: {
          metadata: ref('ObjectMeta'),
          spec: {
            type: 'object',
            required: ['containers'],
            properties: { containers: { type: 'array', items: ref('Container') } },
          },
        },
      },
      Container: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          image: { type: 'string' },
          imagePullPolicy: { type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] },
          resources: {
            type: 'object',
            properties: { limits: { type: 'object', additionalProperties: ref('Quantity') } },
          },
          ports: {
            type: 'array',
            items: {
              type: 'object',
              properties: { containerPort: { type: 'integer' }, targetPort: ref('IntOrString') },
            },
          },
          args: { type: 'object', description: 'RawExtension: any object' },
        },
      },
      Quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      IntOrString: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
      ObjectMeta: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          namespace: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          creationTimestamp: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};

/** A CRD's document: preserved unknown fields, int-or-string, an embedded resource. */
const widgets: JsonObject = {
  components: {
    schemas: {
      'io.example.v1.Widget': {
        type: 'object',
        'x-kubernetes-group-version-kind': [{ group: 'example.io', kind: 'Widget', version: 'v1' }],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec: {
            type: 'object',
            properties: {
              size: { 'x-kubernetes-int-or-string': true },
              extra: {
                type: 'object',
                'x-kubernetes-preserve-unknown-fields': true,
                properties: { mode: { type: 'string' } },
              },
              template: {
                type: 'object',
                'x-kubernetes-embedded-resource': true,
                properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
              },
            },
          },
        },
      },
    },
  },
};

const documents = new Map([
  ['apps/v1', apps],
  ['example.io/v1', widgets],
]);

const deployment = (spec: JsonObject, metadata: JsonObject = { name: 'web' }): JsonValue => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata,
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    ...spec,
  },
});

const lines = (manifest: ReadonlyArray<JsonValue>): ReadonlyArray<string> =>
  openApiIssues({ manifest, documents }).map((issue) => `${issue.path}: ${issue.message}`);

describe('openApiIssues', () => {
  it('accepts a valid resource, nulls anywhere, Quantity numbers and int-or-string values, free-form objects, and ignores status', () => {
    const container = {
      name: 'web',
      resources: { limits: { cpu: 1, memory: '1Gi' } },
      ports: [
        { containerPort: 80, targetPort: 'http' },
        { containerPort: 81, targetPort: 8081 },
      ],
      args: { any: { thing: 1 } },
    };
    expect(
      lines([
        deployment(
          { replicas: 2, paused: null, template: { spec: { containers: [container] } } },
          { name: 'web', creationTimestamp: null },
        ),
        { ...(deployment({}) as JsonObject), status: { bogus: true } },
      ]),
    ).toEqual([]);
  });

  it('names unknown fields with the closest known one, wrong types, values outside an enum and missing required fields', () => {
    expect(
      lines([
        deployment(
          {
            replica: 2,
            replicas: '3',
            template: { spec: { containers: [{ name: 'web', imagePullPolicy: 'Sometimes' }, { image: 'x' }] } },
          },
          { name: 'web', lables: { a: 'b' } },
        ),
      ]),
    ).toEqual([
      'spec.manifest[0].metadata.lables: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean `labels`?',
      'spec.manifest[0].spec.template.spec.containers[0].imagePullPolicy: "Sometimes" is not one of "Always", "IfNotPresent", "Never" (the cluster\'s schema of apps/v1 Deployment)',
      "spec.manifest[0].spec.template.spec.containers[1].name: missing required field name (the cluster's schema of apps/v1 Deployment)",
      'spec.manifest[0].spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean `replicas`?',
      'spec.manifest[0].spec.replicas: expected integer, got string "3" (the cluster\'s schema of apps/v1 Deployment)',
    ]);
  });

  it('checks map values against additionalProperties and int-or-string / oneOf alternatives', () => {
    expect(
      lines([
        deployment({
          selector: { matchLabels: { app: 3 } },
          template: {
            spec: { containers: [{ name: 'a', resources: { limits: { cpu: true } }, ports: [{ targetPort: 1.5 }] }] },
          },
        }),
      ]),
    ).toEqual([
      "spec.manifest[0].spec.selector.matchLabels.app: expected string, got number 3 (the cluster's schema of apps/v1 Deployment)",
      "spec.manifest[0].spec.template.spec.containers[0].resources.limits.cpu: expected string or number, got boolean true (the cluster's schema of apps/v1 Deployment)",
      "spec.manifest[0].spec.template.spec.containers[0].ports[0].targetPort: expected integer or string, got number 1.5 (the cluster's schema of apps/v1 Deployment)",
    ]);
  });

  it('respects CRD extensions: preserved unknown fields, int-or-string, embedded resources', () => {
    const widget = (spec: JsonObject): JsonValue => ({
      apiVersion: 'example.io/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec,
    });
    expect(
      lines([
        widget({
          size: '10%',
          extra: { mode: 'x', anything: [1] },
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'b' } },
        }),
      ]),
    ).toEqual([]);
    expect(lines([widget({ size: true, extra: { mode: 1 }, template: { spec: { b: 1 } }, colour: 'red' })])).toEqual([
      "spec.manifest[0].spec.size: expected integer or string, got boolean true (the cluster's schema of example.io/v1 Widget)",
      "spec.manifest[0].spec.extra.mode: expected string, got number 1 (the cluster's schema of example.io/v1 Widget)",
      'spec.manifest[0].spec.template.spec.b: unknown field of example.io/v1 Widget (the API server would refuse or drop it): remove it',
      'spec.manifest[0].spec.colour: unknown field of example.io/v1 Widget (the API server would refuse or drop it): remove it',
    ]);
  });

  it('skips kinds and group-versions without a document (the plan reports unknown kinds) and entries that are no resource', () => {
    expect(
      lines([
        { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { bogus: 1 } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, bogus: 1 },
        'text',
        { kind: 'Deployment' },
      ]),
    ).toEqual([]);
  });

  it('finds the document of a group-version in the /openapi/v3 index', () => {
    expect([openApiPathOf('v1'), openApiPathOf('apps/v1'), openApiPathOf('example.io/v1')]).toEqual([
      'api/v1',
      'apis/apps/v1',
      'apis/example.io/v1',
    ]);
  });
});
