/** Ownership marks: how a child is recognised as belonging to one Application. */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  jsonEqual,
  setOwn,
  withKey,
  type JsonObject,
  type JsonValue,
} from '../json/json.js';
import { memoTable, recall, keep, type Memo } from '../memo/memo.js';
import { escapePointerToken } from '../json/path.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNER_ANNOTATION,
} from '../model/application.js';
import { refOf, type ObjectMeta, type ObjectRef, type Resource } from '../model/resource.js';
import type { FieldChange, JsonPatchOperation } from '../model/plan.js';
import { defined } from '../json/defined.js';

/** The kind of a primary object kreconcile reconciles for an embedder (not an Application). */
export type PrimaryKind = { readonly apiVersion: string; readonly kind: string };

/**
 * The object a plan is for: what the marks need to know of it. `kind` is set only for a primary
 * that is not an Application (the embedded runtime): its marks then name the kind, so that two
 * primaries of different kinds with one name never share children.
 */
export type Owner = {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly kind?: PrimaryKind;
};

/** The owner of the children of `object` (an Application, or an embedder's primary mapped to one). */
export const ownerFor = (object: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
}): Owner => ({
  namespace: object.metadata.namespace ?? 'default',
  name: object.metadata.name,
  ...defined({ uid: object.metadata.uid }),
  ...(object.apiVersion === APPLICATION_API_VERSION && object.kind === APPLICATION_KIND
    ? {}
    : { kind: { apiVersion: object.apiVersion, kind: object.kind } }),
});

/**
 * How owner marks name a primary kind: `Kind.group:` (`Kind:` for the core group); Applications' marks have no prefix.
 */
export const primaryMarkPrefix = (kind: PrimaryKind): string => {
  const slash = kind.apiVersion.indexOf('/');
  return slash < 0 ? `${kind.kind}:` : `${kind.kind}.${kind.apiVersion.slice(0, slash)}:`;
};

/** The prefix of the marks of `kind`'s children: '' for Applications (`ns/name`), else `primaryMarkPrefix`. */
export const markPrefixOf = (kind: PrimaryKind): string =>
  kind.apiVersion === APPLICATION_API_VERSION && kind.kind === APPLICATION_KIND ? '' : primaryMarkPrefix(kind);

export const ownerMark = (owner: Owner): string =>
  `${owner.kind === undefined ? '' : primaryMarkPrefix(owner.kind)}${owner.namespace}/${owner.name}`;

/** The owner annotation of a live object, if any. */
export const ownerOf = (object: JsonObject): string | undefined => {
  const metadata = getOwn(object, 'metadata');
  const annotations = isJsonObject(metadata) ? getOwn(metadata, 'annotations') : undefined;
  const owner = isJsonObject(annotations) ? getOwn(annotations, OWNER_ANNOTATION) : undefined;
  return typeof owner === 'string' ? owner : undefined;
};

export const isOwnedBy = (object: JsonObject, owner: Owner): boolean => {
  const mark = ownerOf(object);
  if (owner.kind !== undefined) return mark === ownerMark(owner);
  // Compared in place, as `ownerMark(owner)` would read: this runs for every live object of a plan.
  return (
    mark !== undefined &&
    mark.length === owner.namespace.length + 1 + owner.name.length &&
    mark.startsWith(owner.namespace) &&
    mark.charCodeAt(owner.namespace.length) === SLASH &&
    mark.endsWith(owner.name)
  );
};

const SLASH = 47;

const mergedStrings = (existing: JsonValue | undefined, key: string, value: string): JsonObject =>
  withKey(isJsonObject(existing) ? existing : {}, key, value);

/**
 * A resource ready to create: the label `app.kubernetes.io/managed-by`, the annotation
 * `kreconcile.io/owner`, and an ownerReference when the child shares the Application's
 * namespace (garbage collection then backs up the finalizer). Server-set metadata is dropped.
 */
export const withOwnershipMarks = (resource: Resource, ref: ObjectRef, owner: Owner): Resource => {
  const metadata: JsonObject = resource.metadata;
  // One new metadata object, built key by key: this runs for every desired resource of a plan.
  const marked: Record<string, JsonValue> = {};
  for (const key of Object.keys(metadata)) {
    const value = metadata[key];
    if (value !== undefined && !SERVER_SET_METADATA.has(key)) setOwn(marked, key, value);
  }
  setOwn(marked, 'labels', mergedStrings(getOwn(metadata, 'labels'), MANAGED_BY_LABEL, MANAGED_BY_VALUE));
  setOwn(marked, 'annotations', mergedStrings(getOwn(metadata, 'annotations'), OWNER_ANNOTATION, ownerMark(owner)));
  if (owner.uid !== undefined && ref.namespace === owner.namespace) {
    setOwn(marked, 'ownerReferences', [...ownerReferencesOf(metadata), controllerReference(owner, owner.uid)]);
  }
  // Every key of `metadata` but the server-set ones (`name` is none of them): still an ObjectMeta.
  return withKey(resource, 'metadata', marked as ObjectMeta);
};

/**
 * `resource` as `plan` compares it with its live object: as created, marks included, when its
 * schema observes `metadata.labels`, `annotations` or `ownerReferences` as a whole (else a patch
 * would remove our own marks). Otherwise the resource itself: the marks are not observed.
 */
export const asCreated = (resource: Resource, schema: JsonValue | undefined, owner: Owner, memo?: Memo): Resource => {
  const metadata = isJsonObject(schema) ? getOwn(schema, 'metadata') : undefined;
  const observesMarks =
    isJsonObject(metadata) &&
    (getOwn(metadata, 'labels') === null ||
      getOwn(metadata, 'annotations') === null ||
      getOwn(metadata, 'ownerReferences') === null);
  if (!observesMarks) return resource;
  // Planning compares and creates the same desired objects reconcile after reconcile: with a memo,
  // the marked copy is kept per object (immutable by contract) with the whole owner it was made for.
  const cached = recall(memo, MARKED_COPIES, resource);
  if (cached !== undefined && jsonEqual(cached.owner, owner)) return cached.value;
  return keep(memo, MARKED_COPIES, resource, { owner, value: withOwnershipMarks(resource, refOf(resource), owner) })
    .value;
};

const MARKED_COPIES = memoTable<Resource, { readonly owner: Owner; readonly value: Resource }>(
  'resource with owner marks, per resource and owner',
);

const SERVER_SET_METADATA = new Set([
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

const ownerReferencesOf = (metadata: JsonObject): ReadonlyArray<JsonValue> => {
  const existing = getOwn(metadata, 'ownerReferences');
  return isJsonArray(existing)
    ? existing.filter((reference) => !(isJsonObject(reference) && reference.controller === true))
    : [];
};

const controllerReference = (owner: Owner, uid: string): JsonObject => ({
  apiVersion: owner.kind?.apiVersion ?? APPLICATION_API_VERSION,
  kind: owner.kind?.kind ?? APPLICATION_KIND,
  name: owner.name,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});

/**
 * Operations that add our marks to a live object being adopted. They follow `fields`, the field
 * operations of the same patch, which may write `metadata.labels`/`annotations` whole: a mark is
 * then added inside the written map instead of replacing it (and being replaced by it).
 */
export const adoptionPatch = (
  live: Resource,
  owner: Owner,
  fields: ReadonlyArray<JsonPatchOperation> = [],
): { readonly operations: ReadonlyArray<JsonPatchOperation>; readonly changes: ReadonlyArray<FieldChange> } => {
  const metadata: ObjectMeta = live.metadata;
  const marks: ReadonlyArray<readonly [string, string, string]> = [
    ['labels', MANAGED_BY_LABEL, MANAGED_BY_VALUE],
    ['annotations', OWNER_ANNOTATION, ownerMark(owner)],
  ];
  const operations = marks.map(([field, key, value]): JsonPatchOperation =>
    mapExistsAfter(metadata, field, fields)
      ? { op: 'add', path: `/metadata/${field}/${escapePointerToken(key)}`, value }
      : { op: 'add', path: `/metadata/${field}`, value: { [key]: value } },
  );
  const changes = marks.map(([field, key, value]) => ({ path: `metadata.${field}["${key}"]`, to: value }));
  const reference = adoptedReference(live, owner, fields);
  return reference === undefined || owner.uid === undefined
    ? { operations, changes }
    : {
        operations: [...operations, reference],
        changes: [...changes, { path: 'metadata.ownerReferences', to: controllerReference(owner, owner.uid) }],
      };
};

/**
 * Adoption also adds our controller ownerReference (as a create does) when the object shares the
 * Application's namespace, our uid is known and no other controller already claims it (the API
 * server allows one controller reference; another owner's claim is left alone).
 */
const adoptedReference = (
  live: Resource,
  owner: Owner,
  fields: ReadonlyArray<JsonPatchOperation>,
): JsonPatchOperation | undefined => {
  if (owner.uid === undefined || live.metadata.namespace !== owner.namespace) return undefined;
  if (fields.some((op) => op.path === '/metadata/ownerReferences' || op.path.startsWith('/metadata/ownerReferences/')))
    return undefined;
  const existing = getOwn(live.metadata, 'ownerReferences');
  const references = isJsonArray(existing) ? existing : [];
  if (references.some((reference) => isJsonObject(reference) && reference.controller === true)) return undefined;
  const value = controllerReference(owner, owner.uid);
  return isJsonArray(existing)
    ? { op: 'add', path: '/metadata/ownerReferences/-', value }
    : { op: 'add', path: '/metadata/ownerReferences', value: [value] };
};

/** Whether `metadata[field]` is an object once `fields` have been applied to the live object. */
const mapExistsAfter = (metadata: JsonObject, field: string, fields: ReadonlyArray<JsonPatchOperation>): boolean => {
  const last = fields.filter((op) => op.path === `/metadata/${field}` && op.op !== 'test').at(-1);
  if (last === undefined) return isJsonObject(getOwn(metadata, field));
  return last.op !== 'remove' && isJsonObject(last.value);
};
