/**
 * The admission policies the operator's guarantees rest on, checked when it starts: approvals
 * (`kreconcile-approvals`, docs/decisions/0026) and the garbage collector's refusal
 * (`kreconcile-garbage-collection`, docs/decisions/0029). Each must be installed as this version
 * prints it (`kreconcile rbac`) and bound with `validationActions: [Deny]`. Without the approvals
 * policy the operator cannot tell who set `kreconcile.io/approve`, so it fails closed: it accepts
 * no approval at all, and says why in every GuardDenied condition.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import {
  getIn,
  isJsonArray,
  jsonEqual,
  showClusterError,
  type Cluster,
  type JsonValue,
  type Resource,
} from '../../core/internal.js';
import { ADMISSION_API } from '../manifests/admission-binding.js';
import { APPROVALS_POLICY, approvalsPolicy } from '../manifests/approvals.js';
import { GARBAGE_COLLECTION_POLICY, garbageCollectionPolicy } from '../manifests/garbage-collection.js';

/** The names the policies were installed under (default: as `kreconcile rbac` prints them). */
export type AdmissionPolicyNames = { readonly approvals?: string; readonly garbageCollection?: string };

/** What the check found: `undefined` when the policy is installed, bound and current, else the problem. */
export type AdmissionPolicyReport = {
  readonly approvals: string | undefined;
  readonly garbageCollection: string | undefined;
};

/** The parts of a policy that decide what it refuses (the server adds defaults to the rest). */
const DECIDING_FIELDS = ['variables', 'validations'] as const;

const decidingPartsDiffer = (installed: Resource, expected: Resource): boolean =>
  DECIDING_FIELDS.some((field) => !jsonEqual(getIn(installed, ['spec', field]), getIn(expected, ['spec', field])));

const denies = (binding: Resource, policy: string): boolean => {
  const actions: JsonValue | undefined = getIn(binding, ['spec', 'validationActions']);
  return getIn(binding, ['spec', 'policyName']) === policy && isJsonArray(actions) && actions.includes('Deny');
};

/** The problem with policy `name` (expected to decide as `expected` does), or `undefined`. */
export const checkAdmissionPolicy = async (
  cluster: Cluster,
  name: string,
  expected: Resource,
): Promise<string | undefined> => {
  const policy = await cluster.get({ apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicy', name })();
  if (E.isLeft(policy)) return `cannot read ValidatingAdmissionPolicy ${name}: ${showClusterError(policy.left)}`;
  if (O.isNone(policy.right)) return `ValidatingAdmissionPolicy ${name} is not installed`;
  if (decidingPartsDiffer(policy.right.value, expected))
    return `ValidatingAdmissionPolicy ${name} differs from the one this version prints (an older or edited copy)`;
  const bindings = await cluster.list({ apiVersion: ADMISSION_API, kind: 'ValidatingAdmissionPolicyBinding' })();
  if (E.isLeft(bindings)) return `cannot list ValidatingAdmissionPolicyBindings: ${showClusterError(bindings.left)}`;
  return bindings.right.items.some((binding) => denies(binding, name))
    ? undefined
    : `no ValidatingAdmissionPolicyBinding binds ValidatingAdmissionPolicy ${name} with validationActions [Deny]`;
};

/** Checks both policies (the approvals one only when `guarded`: without a guard no approval is read). */
export const checkAdmissionPolicies = async (
  cluster: Cluster,
  names: AdmissionPolicyNames,
  guarded: boolean,
): Promise<AdmissionPolicyReport> => {
  const approvals = names.approvals ?? APPROVALS_POLICY;
  const collection = names.garbageCollection ?? GARBAGE_COLLECTION_POLICY;
  return {
    approvals: guarded ? await checkAdmissionPolicy(cluster, approvals, approvalsPolicy(approvals)) : undefined,
    garbageCollection: await checkAdmissionPolicy(cluster, collection, garbageCollectionPolicy(collection)),
  };
};

/** Why every approval is refused, as GuardDenied conditions say it: the problem and what to do. */
export const approvalsRefusedBecause = (problem: string): string =>
  `${problem}: without it anyone who may edit the Application could approve, so this operator accepts no approval; install what \`kreconcile rbac\` prints, then restart the operator (docs/decisions/0026)`;

/** The log line for a missing garbage-collection policy: what is at risk and what to do. */
export const garbageCollectionAtRisk = (problem: string): string =>
  `${problem}: kubectl delete --cascade=foreground lets the garbage collector delete children the guard policy or kreconcile.io/prune: disabled protect; install what \`kreconcile rbac\` prints (docs/decisions/0029)`;
