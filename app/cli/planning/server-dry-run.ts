/**
 * `plan --server-dry-run`: every create and patch of the plan sent to the cluster with
 * `dryRun=All`, so the plan shows what the API server would store (defaults, canonical forms,
 * admission webhook mutations), and flags each field the plan sets that the server would store
 * differently: such a field never converges (each reconcile would patch it again).
 *
 * Sent in the order the plan creates them. A create in a Namespace the plan itself creates, or of
 * a kind whose CustomResourceDefinition the plan itself creates, cannot be dry-run: a dry run stores
 * nothing, so the server would answer "namespace not found" or "unknown kind" for an object that
 * is fine. Such objects are not sent; the plan says so and checks them offline instead, against
 * the built-in schemas and the CRDs' own schemas (their CEL rules included).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  catalogIssues,
  fromPointer,
  getIn,
  groupOf,
  isJsonArray,
  isJsonObject,
  jsonEqual,
  showClusterError,
  showPath,
  showRef,
  type Action,
  type ClusterWriter,
  type JsonValue,
  type SchemaCatalog,
} from '../../../core/internal.js';
import type { CrdRules } from '../../../core/schema/structural/rules.js';
import type { Style } from '../style.js';
import type { Planned } from './plan-applications.js';
import { defined } from '../../../core/json/defined.js';

type Path = ReadonlyArray<string | number>;

/** A field the plan sets and the server would store otherwise. */
export type Mismatch = { readonly path: string; readonly planned: JsonValue; readonly stored: JsonValue | undefined };

/**
 * One write's dry run: refused, or stored with the fields that differ and those the server adds,
 * or not sent (`deferred`: why it cannot be dry-run yet) and checked offline (`problems`).
 */
export type DryRun =
  | { readonly action: Action; readonly refused: string }
  | { readonly action: Action; readonly deferred: string; readonly problems: ReadonlyArray<string> }
  | {
      readonly action: Action;
      readonly mismatches: ReadonlyArray<Mismatch>;
      readonly added: ReadonlyArray<{ readonly path: string; readonly value: JsonValue }>;
    };

/** Fields every stored object gets from the server itself, not worth showing as additions. */
const SERVER_METADATA = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields']);

/** The leaves of a value with their paths (an empty object or list is a leaf). */
const leaves = (value: JsonValue, path: Path): ReadonlyArray<readonly [Path, JsonValue]> => {
  if (isJsonArray(value) && value.length > 0) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (isJsonObject(value) && Object.keys(value).length > 0)
    return Object.entries(value).flatMap(([key, child]) => leaves(child, [...path, key]));
  return [[path, value]];
};

/** The planned leaves below `path` whose stored value differs. */
export const mismatchesOf = (planned: JsonValue, stored: JsonValue | undefined, path: Path): ReadonlyArray<Mismatch> =>
  leaves(planned, []).flatMap(([relative, value]) => {
    const actual = getIn(stored, relative);
    return jsonEqual(actual, value) ? [] : [{ path: showPath([...path, ...relative]), planned: value, stored: actual }];
  });

/** The stored leaves a created object did not have (defaults, mutations), server-owned metadata and status left out. */
export const additionsOf = (
  body: JsonValue,
  stored: JsonValue,
): ReadonlyArray<{ readonly path: string; readonly value: JsonValue }> =>
  leaves(stored, []).flatMap(([path, value]) => {
    if (path[0] === 'status' || (path[0] === 'metadata' && SERVER_METADATA.has(String(path[1])))) return [];
    return getIn(body, path) === undefined ? [{ path: showPath(path), value }] : [];
  });

/** A path of a JSON pointer, list positions as numbers. */
const pathOfPointer = (pointer: string): Path =>
  fromPointer(pointer).map((token) => (/^\d+$/.test(token) ? Number(token) : token));

const dryRunOne = async (cluster: ClusterWriter, action: Action): Promise<DryRun | undefined> => {
  if (action.type === 'create') {
    const stored = await cluster.create(action.body, { dryRun: true, fieldValidation: 'Strict' })();
    if (E.isLeft(stored)) return { action, refused: showClusterError(stored.left) };
    return {
      action,
      mismatches: mismatchesOf(action.body, stored.right, []),
      added: additionsOf(action.body, stored.right),
    };
  }
  if (action.type !== 'patch') return undefined;
  const stored = await cluster.patch(
    action.ref,
    { type: 'json', operations: action.patch },
    { dryRun: true, fieldValidation: 'Strict' },
  )();
  if (E.isLeft(stored)) return { action, refused: showClusterError(stored.left) };
  const mismatches = action.patch.flatMap((operation) =>
    operation.op === 'add' || operation.op === 'replace'
      ? mismatchesOf(operation.value, getIn(stored.right, pathOfPointer(operation.path)), pathOfPointer(operation.path))
      : [],
  );
  return { action, mismatches, added: [] };
};

/** What the plans create that a dry run cannot see afterwards: Namespaces, and the kinds of CRDs (`group|Kind`). */
type Created = { readonly namespaces: ReadonlySet<string>; readonly kinds: ReadonlyMap<string, string> };

const createdBy = (planned: ReadonlyArray<Planned>): Created => {
  const namespaces = new Set<string>();
  const kinds = new Map<string, string>();
  for (const { plan } of planned)
    for (const action of plan.actions) {
      if (action.type !== 'create') continue;
      if (action.ref.apiVersion === 'v1' && action.ref.kind === 'Namespace') namespaces.add(action.ref.name);
      const [group, kind] = [getIn(action.body, ['spec', 'group']), getIn(action.body, ['spec', 'names', 'kind'])];
      if (
        action.ref.kind === 'CustomResourceDefinition' &&
        groupOf(action.ref.apiVersion) === 'apiextensions.k8s.io' &&
        typeof group === 'string' &&
        typeof kind === 'string'
      )
        kinds.set(`${group}|${kind}`, action.ref.name);
    }
  return { namespaces, kinds };
};

/** Why a create cannot be dry-run before the plan's own writes exist, or `undefined` when it can. */
const deferral = (action: Action, created: Created): string | undefined => {
  if (action.type !== 'create') return undefined;
  const crd = created.kinds.get(`${groupOf(action.ref.apiVersion)}|${action.ref.kind}`);
  if (crd !== undefined) return `its CustomResourceDefinition ${crd} is created by this plan`;
  const namespace = action.ref.namespace;
  return namespace !== undefined && created.namespaces.has(namespace)
    ? `its Namespace ${namespace} is created by this plan`
    : undefined;
};

/** What offline checks need: the schemas (built-in kinds, the input's and the admin's CRDs) and the CRDs' rules. */
export type OfflineCheck = { readonly catalog: SchemaCatalog; readonly rules?: CrdRules };

const checkedOffline = (action: Action & { readonly type: 'create' }, why: string, offline: OfflineCheck): DryRun => ({
  action,
  deferred: why,
  problems: catalogIssues({
    manifest: [action.body],
    catalog: offline.catalog,
    ...defined({ rules: offline.rules }),
  }).map((issue) => `${issue.path.replace(/^spec\.manifest\[0\]\.?/, '')}: ${issue.message}`),
});

/**
 * The dry runs of every create and patch of every plan, in plan order (recreates and deletes are
 * not sent); creates that need a Namespace or CRD the plans create are checked offline instead.
 */
export const serverDryRun = async (
  cluster: ClusterWriter,
  planned: ReadonlyArray<Planned>,
  offline: OfflineCheck,
): Promise<ReadonlyArray<DryRun>> => {
  const created = createdBy(planned);
  const runs: DryRun[] = [];
  for (const { plan } of planned)
    for (const action of plan.actions) {
      const why = deferral(action, created);
      const run =
        why !== undefined && action.type === 'create'
          ? checkedOffline(action, why, offline)
          : await dryRunOne(cluster, action);
      if (run !== undefined) runs.push(run);
    }
  return runs;
};

/** Whether a dry run found something that keeps the plan from converging (a refusal or a mismatch). */
export const diverges = (runs: ReadonlyArray<DryRun>): boolean =>
  runs.some((run) => 'refused' in run || ('deferred' in run ? run.problems.length > 0 : run.mismatches.length > 0));

const shown = (action: Action, value: JsonValue | undefined): string =>
  action.ref.kind === 'Secret' && action.ref.apiVersion === 'v1'
    ? '(a Secret value, not shown)'
    : value === undefined
      ? '(nothing)'
      : JSON.stringify(value);

/** The text block appended to the plan. */
export const renderDryRun = (runs: ReadonlyArray<DryRun>, style: Style): string => {
  const lines = runs.flatMap((run) => {
    const head = `${run.action.type} ${showRef(run.action.ref)}`;
    if ('refused' in run) return [style.red(`  ✗ ${head}: the API server would refuse it: ${run.refused}`)];
    if ('deferred' in run)
      return [
        `  ${run.problems.length === 0 ? '·' : style.red('✗')} ${head}: not sent (${run.deferred}; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: ${run.problems.length === 0 ? 'valid' : `${run.problems.length} problem(s)`}`,
        ...run.problems.map((problem) => style.red(`      ✗ ${problem}`)),
      ];
    return [
      `  ${run.mismatches.length === 0 ? '✓' : style.red('!')} ${head}: ${run.mismatches.length === 0 ? 'stored as planned' : `${run.mismatches.length} field(s) stored differently: the plan would never converge on them`}`,
      ...run.mismatches.map((mismatch) =>
        style.red(
          `      ! ${mismatch.path}: the server would store ${shown(run.action, mismatch.stored)}, the plan sets ${shown(run.action, mismatch.planned)}`,
        ),
      ),
      ...run.added.map((addition) =>
        style.dim(`      + ${addition.path}: ${shown(run.action, addition.value)} (set by the server)`),
      ),
    ];
  });
  return `\nServer dry run (dryRun=All: what the API server would store):\n${lines.length === 0 ? '  nothing to send\n' : `${lines.join('\n')}\n`}`;
};
