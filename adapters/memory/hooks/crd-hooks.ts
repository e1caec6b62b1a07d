/**
 * CustomResourceDefinition: validated and defaulted like apiextensions-apiserver. Stored without
 * conditions; the establishing controller (background) accepts the names, sets Established and
 * only then serves the kind. Updates of an established definition are re-read at once; the kind
 * stops being served once the definition is gone.
 */
import * as E from 'fp-ts/lib/Either.js';
import { getIn, getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { clusterError, type ClusterError, type ErrorCause } from '../../../core/ports/errors.js';
import { objectAt, withDefaults } from '../defaulting/index.js';
import type { KindInfo } from '../kinds/index.js';
import type { KindHooks } from './kind-hook-types.js';
import { isDnsSubdomain, timestamp } from '../typing/index.js';
import type { ServerState } from '../server-state.js';
import { causesText } from '../../../core/schema/structural/go-text.js';
import { crdBoundProblem, versionSchemas } from '../../../core/schema/structural/bounds.js';
import { defined } from '../../../core/json/defined.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const versionsOf = (crd: JsonValue): ReadonlyArray<JsonObject> => {
  const versions = getIn(crd, ['spec', 'versions']);
  return isJsonArray(versions) ? versions.filter(isJsonObject) : [];
};

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

const cause = (field: string, message: string): ErrorCause => ({ field, reason: 'FieldValueInvalid', message });

const specCauses = (crd: Resource): ReadonlyArray<ErrorCause> => {
  const group = text(getIn(crd, ['spec', 'group']));
  const plural = text(getIn(crd, ['spec', 'names', 'plural']));
  const versions = versionsOf(crd);
  return [
    ...(isDnsSubdomain(group) && group.includes('.')
      ? []
      : [cause('spec.group', `Invalid value: "${group}": should be a domain with at least one dot`)]),
    ...(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(plural)
      ? []
      : [cause('spec.names.plural', `Invalid value: "${plural}": a lowercase RFC 1123 label is required`)]),
    ...(text(getIn(crd, ['spec', 'names', 'kind'])) !== '' ? [] : [cause('spec.names.kind', 'Required value')]),
    ...(['Namespaced', 'Cluster'].includes(text(getIn(crd, ['spec', 'scope'])))
      ? []
      : [cause('spec.scope', 'Unsupported value: supported values: "Cluster", "Namespaced"')]),
    ...(versions.length > 0 && versions.every((v) => text(getOwn(v, 'name')) !== '')
      ? []
      : [cause('spec.versions', 'Required value: must have at least one version, each with a name')]),
    ...(versions.filter((v) => getOwn(v, 'storage') === true).length === 1
      ? []
      : [cause('spec.versions', 'Invalid value: must have exactly one version marked as storage version')]),
    ...(crd.metadata.name === `${plural}.${group}`
      ? []
      : [cause('metadata.name', `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`)]),
  ];
};

/**
 * The versions' schemas: within the bounds offline validation has (docs/decisions/0024), then
 * every CEL rule compiled and its estimated cost within the server's limits.
 */
const schemaCauses = (crd: Resource, state: ServerState): ReadonlyArray<ErrorCause> => {
  const bound = crdBoundProblem(crd);
  if (bound !== undefined) return [{ field: bound.field, reason: 'FieldValueInvalid', message: bound.message }];
  return versionSchemas(crd).flatMap(({ schema, root }) => state.rules.schemaProblems(schema, root));
};

const validated = (crd: Resource, state: ServerState): E.Either<ClusterError, Resource> => {
  const causes = [...specCauses(crd), ...schemaCauses(crd, state)];
  return causes.length === 0
    ? E.right(crd)
    : E.left(
        clusterError(
          'Invalid',
          `CustomResourceDefinition.apiextensions.k8s.io "${crd.metadata.name}" is invalid: ${causesText(causes)}`,
          { causes },
        ),
      );
};

const withSpecDefaults = (crd: Resource): Resource => {
  const spec = objectAt(crd, 'spec');
  const names = objectAt(spec, 'names');
  const kind = text(getOwn(names, 'kind'));
  return {
    ...crd,
    spec: {
      ...withDefaults(spec, { conversion: { strategy: 'None' } }),
      names: withDefaults(names, { singular: kind.toLowerCase(), listKind: `${kind}List` }),
    },
  };
};

const condition = (type: string, reason: string, message: string, now: number): JsonObject => ({
  type,
  status: 'True',
  reason,
  message,
  lastTransitionTime: timestamp(now),
});

const storedVersions = (crd: Resource): ReadonlyArray<string> =>
  versionsOf(crd)
    .filter((v) => getOwn(v, 'storage') === true)
    .map((v) => text(getOwn(v, 'name')));

/** The status a new definition is stored with, before the controllers have looked at it. */
const initialStatus = (crd: Resource): JsonObject => ({
  conditions: null,
  acceptedNames: { plural: '', kind: '' },
  storedVersions: storedVersions(crd),
});

/** Whether the definition's kind is served (its Established condition is True). */
export const isEstablished = (crd: Resource): boolean => {
  const conditions = getIn(crd, ['status', 'conditions']);
  return (
    isJsonArray(conditions) &&
    conditions.some((c) => getIn(c, ['type']) === 'Established' && getIn(c, ['status']) === 'True')
  );
};

/** The status once names are accepted and the kind is established. */
export const establishedStatus = (crd: Resource, now: number): JsonObject => ({
  conditions: [
    condition('NamesAccepted', 'NoConflicts', 'no conflicts found', now),
    condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', now),
  ],
  acceptedNames: getIn(crd, ['spec', 'names']) ?? {},
  storedVersions: storedVersions(crd),
});

/** The kind a definition serves. */
export const kindFromCrd = (crd: Resource): KindInfo => {
  const served = versionsOf(crd).filter((v) => getOwn(v, 'served') !== false);
  return {
    group: text(getIn(crd, ['spec', 'group'])),
    kind: text(getIn(crd, ['spec', 'names', 'kind'])),
    plural: text(getIn(crd, ['spec', 'names', 'plural'])),
    scope: getIn(crd, ['spec', 'scope']) === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions: new Set(served.map((v) => text(getOwn(v, 'name')))),
    statusSubresource: served.some((v) => getIn(v, ['subresources', 'status']) !== undefined),
    generation: true,
    custom: true,
    schemas: new Map(
      served.map((v) => [text(getOwn(v, 'name')), getIn(v, ['schema', 'openAPIV3Schema']) ?? null] as const),
    ),
    crdName: crd.metadata.name,
  };
};

/** Serves the definition's kind; its watch cache starts now unless the kind was already served by this definition. */
export const serveKind = (state: ServerState, crd: Resource): void => {
  const kind = kindFromCrd(crd);
  const served = state.registry.byGroupKind(kind.group, kind.kind);
  const watchCacheFrom = served?.crdName === crd.metadata.name ? served.watchCacheFrom : state.resourceVersion;
  state.registry.register({ ...kind, ...defined({ watchCacheFrom }) });
};

/** A definition being deleted: condition Terminating while its custom resources are removed. */
export const terminatingStatus = (crd: Resource, now: number): JsonObject => {
  const status = objectAt(crd, 'status');
  const conditions = getOwn(status, 'conditions');
  const others = isJsonArray(conditions) ? conditions.filter((c) => getIn(c, ['type']) !== 'Terminating') : [];
  return {
    ...status,
    conditions: [
      ...others,
      {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionInProgress',
        message: 'CustomResource deletion is in progress',
        lastTransitionTime: timestamp(now),
      },
    ],
  };
};

const immutableCauses = (stored: Resource, next: Resource): ReadonlyArray<ErrorCause> =>
  [
    ['spec', 'group'],
    ['spec', 'scope'],
    ['spec', 'names', 'plural'],
  ]
    .filter((path) => getIn(stored, path) !== getIn(next, path))
    .map((path) => cause(path.join('.'), 'field is immutable'));

export const crdHooks: KindHooks = {
  prepareCreate: (crd, { state }) => {
    const defaulted = withSpecDefaults(crd);
    return E.map((valid: Resource) => ({ ...valid, status: initialStatus(valid) }))(validated(defaulted, state));
  },
  prepareUpdate: (stored, next, { state }) => {
    const causes = immutableCauses(stored, next);
    if (causes.length > 0)
      return E.left(
        clusterError(
          'Invalid',
          `CustomResourceDefinition.apiextensions.k8s.io "${next.metadata.name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
          { causes },
        ),
      );
    return validated(withSpecDefaults(next), state);
  },
  committed: (crd, { state }) => {
    if (isEstablished(crd)) serveKind(state, crd);
  },
  removed: (crd, { state }) => {
    const info = kindFromCrd(crd);
    state.registry.unregister(info.group, info.kind);
    state.kindRemoved(info);
  },
};
