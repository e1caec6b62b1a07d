/**
 * Tenancy: which children an Application may write, decided from an admin-owned policy. By default
 * (no policy, or an empty one) an Application writes only namespaced children in its own namespace,
 * adopts only there, and never writes a cluster-scoped object. A tenant who may create an
 * Application must not become cluster-admin through the operator (issue 10).
 */
import { refOf, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import { scopeKey } from '../model/scope.js';
import { ANY, type TenancyPolicy } from '../model/tenancy-policy.js';
import { ownerOf, type Owner } from './ownership.js';
import type { ForbiddenAction, ForbiddenRule } from './types.js';

/** The policy used when none is given: own namespace only. */
export const DEFAULT_TENANCY: TenancyPolicy = {};

const applies = (from: string, namespace: string): boolean => from === ANY || from === namespace;

/** The namespaces Applications in `namespace` may write to (`*` among them: any). */
export const allowedDestinations = (policy: TenancyPolicy, namespace: string): ReadonlyArray<string> =>
  [...new Set([namespace, ...(policy.destinations ?? []).filter((rule) => applies(rule.from, namespace)).flatMap((rule) => rule.to)])];

/** `Kind` alone names the core group, as `scopeKey` writes it (`/Kind`). */
const kindKey = (kind: string): string => (kind === ANY || kind.includes('/') ? kind : `/${kind}`);

const allowedClusterKinds = (policy: TenancyPolicy, namespace: string): ReadonlySet<string> =>
  new Set((policy.clusterKinds ?? []).filter((rule) => applies(rule.from, namespace)).flatMap((rule) => rule.kinds.map(kindKey)));

/** Why an Application in `namespace` may not write the object at `ref`, or `undefined` when it may. */
export const targetViolation = (policy: TenancyPolicy, namespace: string, ref: ObjectRef): ForbiddenAction | undefined => {
  if (ref.namespace === undefined) {
    const kinds = allowedClusterKinds(policy, namespace);
    const key = scopeKey(ref.apiVersion, ref.kind);
    return kinds.has(ANY) || kinds.has(key) ? undefined : forbidden(ref, 'ClusterScoped',
      `${key.replace(/^\//, '')} is cluster-scoped and not allowed for Applications in ${namespace} (policy clusterKinds: ${[...kinds].join(', ') || 'none'})`);
  }
  const destinations = allowedDestinations(policy, namespace);
  return destinations.includes(ANY) || destinations.includes(ref.namespace) ? undefined : forbidden(ref, 'Destination',
    `namespace ${ref.namespace} is not an allowed destination for Applications in ${namespace} (policy destinations: ${destinations.join(', ')})`);
};

/** Whether an Application in `namespace` may write (create, patch, delete) the object at `ref`. */
export const mayTarget = (policy: TenancyPolicy, namespace: string, ref: ObjectRef): boolean =>
  targetViolation(policy, namespace, ref) === undefined;

/** Whether `spec.adopt` may take over an unowned object at `ref` (a writable target, see `mayTarget`). */
export const mayAdopt = (policy: TenancyPolicy, namespace: string, ref: ObjectRef): boolean => {
  const rule = policy.adoption ?? 'ownNamespace';
  return rule === 'destinations' ? mayTarget(policy, namespace, ref) : rule === 'ownNamespace' && ref.namespace === namespace;
};

/**
 * The desired children the policy forbids, each with its rule and reason: outside the allowed
 * destinations, of a cluster-scoped kind not allowed, or (with `spec.adopt`) an existing unowned
 * object where adoption is not allowed. Empty when the Application may be applied.
 */
export const forbiddenChildren = (args: {
  readonly policy: TenancyPolicy;
  readonly owner: Owner;
  readonly desired: ReadonlyArray<Resource>;
  /** Live objects by `resourceKey`; without them adoption cannot be judged (nothing is adopted). */
  readonly liveOf?: (resource: Resource) => Resource | undefined;
  readonly adopt: boolean;
}): ReadonlyArray<ForbiddenAction> => args.desired.flatMap((resource) => {
  const ref = refOf(resource);
  const violation = targetViolation(args.policy, args.owner.namespace, ref);
  if (violation !== undefined) return [violation];
  const live = args.adopt ? args.liveOf?.(resource) : undefined;
  if (live === undefined || ownerOf(live) !== undefined || mayAdopt(args.policy, args.owner.namespace, ref)) return [];
  return [forbidden(ref, 'Adoption', `spec.adopt may not take over ${showRef(ref)}: the policy allows adoption ${adoptionScope(args.policy)}`)];
});

const adoptionScope = (policy: TenancyPolicy): string => {
  const rule = policy.adoption ?? 'ownNamespace';
  return rule === 'never' ? 'nowhere' : rule === 'destinations' ? 'in allowed destinations only' : 'in the Application\'s own namespace only';
};

const forbidden = (ref: ObjectRef, rule: ForbiddenRule, reason: string): ForbiddenAction => ({ type: 'forbidden', ref, rule, reason, changes: [] });

/** The Stalled message: every forbidden child with its reason. */
export const forbiddenMessage = (actions: ReadonlyArray<ForbiddenAction>): string =>
  `not allowed by the tenancy policy, nothing of this Application is written until the spec or policy changes: ${actions.map((a) => `${showRef(a.ref)} (${a.rule}: ${a.reason})`).join('; ')}`;
