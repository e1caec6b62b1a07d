/**
 * Recreation of resources whose change touches a field the API server will not change once set
 * (a Deployment's selector, a Job's pod template, a Service's clusterIP, …): opt-in per resource
 * with the annotation `kreconcile.io/recreate: "true"`; the patch is then planned as `recreate`
 * (delete, wait until gone, create). Without the annotation the patch is sent and the server's
 * refusal stalls the Application (`ImmutableField`, see core/status/error-policy.ts).
 */
import { getIn } from '../json/json.js';
import { groupOf, type Resource } from '../model/resource.js';
import type { PatchAction, RecreateAction } from '../model/plan.js';

export const RECREATE_ANNOTATION = 'kreconcile.io/recreate';

/**
 * JSON Pointer prefixes the API server refuses to change, per `group/Kind` (its validation of
 * updates for built-in kinds; custom kinds' rules are unknown here, the server's answer tells).
 */
const IMMUTABLE: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ['apps/Deployment', ['/spec/selector']],
  ['apps/ReplicaSet', ['/spec/selector']],
  ['apps/DaemonSet', ['/spec/selector']],
  [
    'apps/StatefulSet',
    ['/spec/selector', '/spec/serviceName', '/spec/volumeClaimTemplates', '/spec/podManagementPolicy'],
  ],
  ['batch/Job', ['/spec/selector', '/spec/template', '/spec/completionMode']],
  ['/Service', ['/spec/clusterIP', '/spec/clusterIPs']],
  [
    '/PersistentVolumeClaim',
    [
      '/spec/accessModes',
      '/spec/storageClassName',
      '/spec/volumeName',
      '/spec/volumeMode',
      '/spec/selector',
      '/spec/dataSource',
    ],
  ],
  ['rbac.authorization.k8s.io/RoleBinding', ['/roleRef']],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', ['/roleRef']],
]);

/** Whether the manifest resource opts into recreation. */
export const wantsRecreate = (resource: Resource): boolean =>
  getIn(resource, ['metadata', 'annotations', RECREATE_ANNOTATION]) === 'true';

const within = (pointer: string, prefix: string): boolean => pointer === prefix || pointer.startsWith(`${prefix}/`);

/** The immutable fields (JSON Pointer prefixes) a patch would change; `test` guards change nothing. */
export const immutableFieldsTouched = (patch: PatchAction): ReadonlyArray<string> => {
  const prefixes = IMMUTABLE.get(`${groupOf(patch.ref.apiVersion)}/${patch.ref.kind}`) ?? [];
  const written = patch.patch.filter((op) => op.op !== 'test').map((op) => op.path);
  return prefixes.filter((prefix) => written.some((path) => within(path, prefix)));
};

/** Shown as the dotted field path users write (`/spec/selector` → `spec.selector`). */
const dotted = (pointer: string): string => pointer.slice(1).split('/').join('.');

/**
 * The recreation replacing `patch` when `desired` opts in and the patch changes an immutable
 * field; `undefined` otherwise (the patch stands). `bodyOf` gives what a creation would send.
 */
export const recreateInstead = (
  patch: PatchAction,
  desired: Resource,
  bodyOf: (desired: Resource) => Resource,
): RecreateAction | undefined => {
  const fields = immutableFieldsTouched(patch);
  // The body (a marked copy of the resource) is built only for a recreation, not for every patch.
  if (fields.length === 0 || !wantsRecreate(desired)) return undefined;
  return {
    type: 'recreate',
    ref: patch.ref,
    body: bodyOf(desired),
    fields: fields.map(dotted),
    changes: patch.changes,
  };
};

/**
 * Splits planned patches into those that stand and recreations (see `recreateInstead`).
 * `desiredOf` finds a patch's manifest resource; `bodyOf` is the body its creation would send.
 */
export const withRecreates = (
  patches: ReadonlyArray<PatchAction>,
  desiredOf: (patch: PatchAction) => Resource | undefined,
  bodyOf: (desired: Resource) => Resource,
): { readonly patches: ReadonlyArray<PatchAction>; readonly recreates: ReadonlyArray<RecreateAction> } => {
  const decided = patches.map((patch) => {
    // Only a patch of an immutable field can become a recreation: the others need no lookup.
    const desired = immutableFieldsTouched(patch).length === 0 ? undefined : desiredOf(patch);
    return { patch, recreate: desired === undefined ? undefined : recreateInstead(patch, desired, bodyOf) };
  });
  return {
    patches: decided.flatMap(({ patch, recreate }) => (recreate === undefined ? [patch] : [])),
    recreates: decided.flatMap(({ recreate }) => (recreate === undefined ? [] : [recreate])),
  };
};
