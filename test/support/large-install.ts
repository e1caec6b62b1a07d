/**
 * A synthetic "install.yaml" shaped like argo-rollouts': 15 objects, five of them large
 * CustomResourceDefinitions (an OpenAPI schema of a few hundred KB each, made of nested objects,
 * descriptions, enums and an embedded pod template, as workload CRDs have), the rest the
 * Namespace-scoped objects such an install carries. Generated, deterministic (a seeded generator):
 * no project's files are copied.
 */
import type { JsonObject, JsonValue } from '../../core/json/json.js';
import type { Resource } from '../../core/model/resource.js';

/** mulberry32: a tiny seeded generator, so every run builds the same bytes. */
const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const WORDS = (
  'the of a to is for when field value name list object controller rollout analysis step weight ' +
  'replica pod template container port volume selector label annotation metric provider query ' +
  'interval count limit duration traffic canary stable preview active service ingress route mesh ' +
  'status condition reason message phase scale down delay abort pause promote experiment run ' +
  'argument secret reference key optional default must be set if only applies specifies defines'
).split(' ');

type Rng = () => number;

const pick = <T>(rng: Rng, items: ReadonlyArray<T>): T => items[Math.floor(rng() * items.length)] as T;

const sentence = (rng: Rng, words: number): string =>
  `${Array.from({ length: words }, () => pick(rng, WORDS)).join(' ')}.`;

const fieldName = (rng: Rng, index: number): string =>
  `${pick(rng, WORDS)}${pick(rng, WORDS).replace(/^./, (c) => c.toUpperCase())}${index}`;

/** A schema leaf: a typed field with a description, sometimes an enum or a format. */
const leaf = (rng: Rng): JsonObject => {
  const type = pick(rng, ['string', 'string', 'integer', 'boolean', 'string']);
  const base: JsonObject = { description: sentence(rng, 12 + Math.floor(rng() * 30)), type };
  if (type === 'integer') return { ...base, format: 'int32' };
  if (type === 'string' && rng() < 0.15) return { ...base, enum: ['Always', 'Never', 'IfNotPresent'] };
  return base;
};

/** An object schema `depth` levels deep with `width` properties per level. */
const objectSchema = (rng: Rng, depth: number, width: number): JsonObject => {
  const properties: Record<string, JsonValue> = {};
  for (let i = 0; i < width; i++)
    properties[fieldName(rng, i)] =
      depth > 0 && rng() < 0.35
        ? rng() < 0.3
          ? { type: 'array', items: objectSchema(rng, depth - 1, width) }
          : objectSchema(rng, depth - 1, width)
        : leaf(rng);
  return { description: sentence(rng, 20), type: 'object', properties };
};

/** The same pod template is embedded in several CRDs, as real workload CRDs all embed core/v1 PodTemplateSpec. */
const podTemplate = (): JsonObject => objectSchema(seeded(7), 3, 8);

/** A CustomResourceDefinition whose schema is about `targetBytes` of JSON. */
export const largeCrd = (kind: string, seed: number, targetBytes: number, group = 'large.example.com'): Resource => {
  const rng = seeded(seed);
  const plural = `${kind.toLowerCase()}s`;
  const spec: Record<string, JsonValue> = { template: podTemplate() };
  for (let i = 0; JSON.stringify(spec).length < targetBytes; i++) spec[fieldName(rng, i)] = objectSchema(rng, 3, 8);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', properties: spec },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  };
};

const LARGE_KINDS: ReadonlyArray<readonly [string, number]> = [
  ['Rollout', 190_000],
  ['AnalysisTemplate', 150_000],
  ['ClusterAnalysisTemplate', 150_000],
  ['AnalysisRun', 150_000],
  ['Experiment', 170_000],
];

/**
 * The install: five large CRDs (about 0.8 MB of JSON together), then a ServiceAccount, RBAC, a
 * ConfigMap, a Secret, two Services, a Deployment and a Role/RoleBinding: 15 objects. `scale`
 * multiplies the CRDs' sizes (an install that cannot fit: scale 3).
 */
export const largeInstall = (namespace: string, scale = 1): ReadonlyArray<Resource> => [
  // The CRDs' group names the namespace: runs sharing a cluster do not share CRDs.
  ...LARGE_KINDS.map(([kind, bytes], i) => largeCrd(kind, 100 + i, bytes * scale, `${namespace}.example.com`)),
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'large-controller', namespace } },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `large-controller-${namespace}` },
    rules: [
      { apiGroups: [`${namespace}.example.com`], resources: ['*'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `large-controller-${namespace}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `large-controller-${namespace}` },
    subjects: [{ kind: 'ServiceAccount', name: 'large-controller', namespace }],
  },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'large-config', namespace }, data: { 'log.level': 'info' } },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'large-notification', namespace }, type: 'Opaque' },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'large-metrics', namespace },
    spec: { selector: { app: 'large-controller' }, ports: [{ name: 'metrics', port: 8090, targetPort: 8090 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'large-dashboard', namespace },
    spec: { selector: { app: 'large-dashboard' }, ports: [{ name: 'http', port: 3100, targetPort: 3100 }] },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'large-controller', namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'large-controller' } },
      template: {
        metadata: { labels: { app: 'large-controller' } },
        spec: {
          serviceAccountName: 'large-controller',
          containers: [
            { name: 'controller', image: 'example.com/large-controller:v1', ports: [{ containerPort: 8090 }] },
          ],
        },
      },
    },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'large-leader', namespace },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'large-leader', namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'large-leader' },
    subjects: [{ kind: 'ServiceAccount', name: 'large-controller', namespace }],
  },
];
