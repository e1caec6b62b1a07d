/** The Application CustomResourceDefinition: structural schema, status subresource, printer columns. */
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  groupOf,
  SPEC_FIELDS,
  versionOf,
  type Resource,
} from '../../core/internal.js';

const preserved = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as const;

const condition = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime'],
  properties: {
    type: { type: 'string' },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string' },
    message: { type: 'string' },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    observedGeneration: { type: 'integer', format: 'int64' },
  },
};

/** The waits for readiness kreconcile keeps in status (how long each child has not been ready). */
const readinessWaits = () => ({
  type: 'array',
  items: {
    type: 'object',
    required: ['apiVersion', 'kind', 'name', 'since'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      namespace: { type: 'string' },
      since: { type: 'string', format: 'date-time' },
    },
  },
});

const statusSchema = () => ({
  type: 'object',
  properties: {
    observedGeneration: { type: 'integer', format: 'int64' },
    conditions: {
      type: 'array',
      items: condition,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
    mangledObserverSchema: { type: 'array', items: preserved },
    lastAppliedManifest: { type: 'array', items: preserved },
    lastObservedManifest: { type: 'array', items: preserved },
    drift: { type: 'array', items: preserved },
    contestedFields: { type: 'array', items: preserved },
    // The three lists above as kreconcile stores them now (app/status/stored-status.ts):
    // packed and deflated. The lists themselves are read from an earlier operator's status.
    manifests: {
      type: 'object',
      properties: { encoding: { type: 'string' }, data: { type: 'string' } },
    },
    readinessWaits: readinessWaits(),
  },
});

const openApiV3Schema = () => ({
  type: 'object',
  description: 'A set of Kubernetes resources reconciled by kreconcile, with the fields it observes.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      description: 'What to reconcile: a manifest (or a TOSCA template / CSAR archive) and optional observer schemas.',
      // Every known field with its type (core/model/application.ts SPEC_FIELDS): the API server
      // refuses (fieldValidation=Strict, kubectl's default) or drops any other field.
      properties: Object.fromEntries(Object.entries(SPEC_FIELDS).map(([name, field]) => [name, field.schema])),
    },
    status: statusSchema(),
  },
});

/** `kreconcile crd`: the CRD to install before running the operator. */
export const applicationCrd = (): Resource => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'applications.kreconcile.io' },
  spec: {
    group: groupOf(APPLICATION_API_VERSION),
    scope: 'Namespaced',
    names: {
      kind: APPLICATION_KIND,
      listKind: 'ApplicationList',
      plural: 'applications',
      singular: 'application',
      shortNames: ['kapp'],
    },
    versions: [
      {
        name: versionOf(APPLICATION_API_VERSION),
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: { openAPIV3Schema: openApiV3Schema() },
      },
    ],
  },
});
