/**
 * Offline validation against the committed Kubernetes 1.36 schemas (schemas/kubernetes-1.36.json)
 * and against a CRD's schema: wrong types, enums, required and unknown fields, misspelled fields
 * and kinds, each reported with its path and every one at once.
 */
import { describe, expect, it } from 'vitest';
import { builtinSchemas } from '../../adapters/schemas/builtin-schemas.js';
import {
  catalogIssues,
  catalogOfCompact,
  catalogOfCrds,
  mergeCatalogs,
  type JsonObject,
  type JsonValue,
} from '../../core/internal.js';

const builtin = catalogOfCompact(builtinSchemas());

const issuesOf = (...manifest: ReadonlyArray<JsonValue>): ReadonlyArray<string> =>
  catalogIssues({ manifest, catalog: builtin }).map((issue) => `${issue.path}: ${issue.message}`);

const deployment = (spec: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', resources: { limits: { cpu: '1000m' } } }] },
    },
    ...spec,
  },
  ...extra,
});

describe('offline validation of built-in kinds (Kubernetes 1.36 schemas)', () => {
  it('names the schema file version and covers the common kinds of every group', () => {
    const file = builtinSchemas();
    expect(file.kubernetesVersion).toMatch(/^v1\.36\./);
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['v1', 'Service'],
      ['v1', 'Pod'],
      ['apps/v1', 'Deployment'],
      ['apps/v1', 'StatefulSet'],
      ['batch/v1', 'CronJob'],
      ['networking.k8s.io/v1', 'Ingress'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
      ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration'],
    ] as const)
      expect(file.kinds[apiVersion]?.[kind], `${apiVersion} ${kind}`).toBeDefined();
    expect(file.kinds.v1?.DeleteOptions).toBeUndefined();
  });

  it('accepts a valid Deployment, quantities in any valid form, a port by name and null fields', () => {
    expect(issuesOf(deployment({ replicas: 3, strategy: null }))).toEqual([]);
    expect(
      issuesOf({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
      }),
    ).toEqual([]);
  });

  it('reports every problem of a Deployment at once: typo, enum, type, list written as a map, labels as a list', () => {
    const broken = deployment(
      {
        replica: 3,
        template: {
          metadata: { labels: ['app=web'] },
          spec: { containers: [{ name: 'web', image: 'nginx', imagePullPolicy: 'Sometimes' }] },
        },
        revisionHistoryLimit: '3',
      },
      { metdata: { name: 'x' } },
    );
    expect(issuesOf(broken)).toEqual([
      'spec.manifest[0].spec.template.metadata.labels: expected object, got a list (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      'spec.manifest[0].spec.template.spec.containers[0].imagePullPolicy: "Sometimes" is not one of "Always", "IfNotPresent", "Never" (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      'spec.manifest[0].spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean `replicas`?',
      'spec.manifest[0].spec.revisionHistoryLimit: expected integer, got string "3" (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      'spec.manifest[0].metdata: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean `metadata`?',
    ]);
    expect(
      issuesOf(deployment({ replicas: '3', template: { spec: { containers: { web: { image: 'nginx' } } } } })),
    ).toEqual([
      'spec.manifest[0].spec.template.spec.containers: expected array, got an object (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      'spec.manifest[0].spec.replicas: expected integer, got string "3" (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      // This template has no labels: the server refuses it too (core/schema/server-rules).
      'spec.manifest[0].spec.template.metadata.labels: Invalid value: `selector` does not match template `labels` (the API server refuses it): give the template every label spec.selector.matchLabels names (and what its matchExpressions require)',
    ]);
  });

  it('reports a ConfigMap whose data is a list, and missing required fields', () => {
    expect(issuesOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: ['a=b'] })).toEqual([
      'spec.manifest[0].data: expected object, got a list (the Kubernetes v1.36.3 schema of v1 ConfigMap)',
    ]);
    expect(
      issuesOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } }),
    ).toEqual([
      'spec.manifest[0].spec.selector: missing required field selector (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
      'spec.manifest[0].spec.template: missing required field template (the Kubernetes v1.36.3 schema of apps/v1 Deployment)',
    ]);
  });

  it('suggests the closest kind, and the apiVersion a kind is served as', () => {
    expect(issuesOf({ ...deployment({}), kind: 'Deploymnet' })).toEqual([
      'spec.manifest[0].kind: unknown kind Deploymnet in apps/v1: did you mean `Deployment`?',
    ]);
    expect(issuesOf({ ...deployment({}), apiVersion: 'v1' })).toEqual([
      'spec.manifest[0].apiVersion: Deployment is not a kind of v1: Deployment is served as apiVersion apps/v1',
    ]);
    expect(issuesOf({ ...deployment({}), apiVersion: 'apps/v1beta1' })).toEqual([
      // A removed version is named with its replacement and release (core/schema/removed-apis.ts).
      'spec.manifest[0].apiVersion: apps/v1beta1 Deployment was removed in Kubernetes 1.16: the API server no longer serves it: write apiVersion: apps/v1 (spec.selector becomes required and must match the template labels)',
    ]);
  });

  it('skips custom resources of groups it knows nothing about', () => {
    expect(issuesOf({ apiVersion: 'example.com/v1', kind: 'Song', metadata: { name: 's' }, spec: { any: 1 } })).toEqual(
      [],
    );
  });
});

const songCrd: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'songs.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Song', plural: 'songs' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['title'],
                properties: {
                  title: { type: 'string' },
                  genre: { type: 'string', enum: ['rock', 'jazz'] },
                  minutes: { type: 'integer' },
                  extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('offline validation of a CRD-defined kind', () => {
  const catalog = mergeCatalogs(builtin, catalogOfCrds([songCrd]));
  const issues = (resource: JsonObject): ReadonlyArray<string> =>
    catalogIssues({ manifest: [resource], catalog }).map((issue) => `${issue.path}: ${issue.message}`);

  it('accepts a valid custom resource, preserved unknown fields included', () => {
    expect(
      issues({
        apiVersion: 'example.com/v1',
        kind: 'Song',
        metadata: { name: 's', labels: { a: 'b' } },
        spec: { title: 'So What', genre: 'jazz', extra: { anything: [1] } },
      }),
    ).toEqual([]);
  });

  it('reports wrong types, enums, missing required and misspelled fields, metadata included', () => {
    expect(
      issues({
        apiVersion: 'example.com/v1',
        kind: 'Song',
        metadata: { name: 's', lables: { a: 'b' } },
        spec: { titel: 'So What', genre: 'blues', minutes: '9' },
      }),
    ).toEqual([
      'spec.manifest[0].metadata.lables: unknown field of example.com/v1 Song (the API server would refuse or drop it): did you mean `labels`?',
      'spec.manifest[0].spec.titel: unknown field of example.com/v1 Song (the API server would refuse or drop it): did you mean `title`?',
      // A custom resource's problems in the API server's words (core/schema/structural).
      'spec.manifest[0].spec.title: Required value (the schema of CustomResourceDefinition songs.example.com of example.com/v1 Song)',
      'spec.manifest[0].spec.genre: Unsupported value: "blues": supported values: "rock", "jazz" (the schema of CustomResourceDefinition songs.example.com of example.com/v1 Song)',
      'spec.manifest[0].spec.minutes: Invalid value: "string": spec.minutes in body must be of type integer: "string" (the schema of CustomResourceDefinition songs.example.com of example.com/v1 Song)',
    ]);
  });

  it('does not call a kind unknown in a group only partly known from CRDs', () => {
    expect(issues({ apiVersion: 'example.com/v1', kind: 'Album', metadata: { name: 'a' }, spec: {} })).toEqual([]);
  });
});
