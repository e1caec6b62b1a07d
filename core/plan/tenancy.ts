/**
 * Tenancy: which children an Application may write, decided from an admin-owned policy. By default
 * (no policy, or an empty one) an Application writes only namespaced children in its own namespace,
 * adopts only there, and never writes a cluster-scoped object. A tenant who may create an
 * Application must not become cluster-admin through the operator (issue 10).
 */
import type { JsonObject } from '../json/json.js';
import { refOf, resourceKey, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import { scopeKey } from '../model/scope.js';
import { ANY, type TenancyPolicy } from '../model/tenancy-policy.js';
import { ownerOf } from '../manifest/ownership.js';
import type { ForbiddenAction, ForbiddenRule } from '../model/plan.js';

/** The policy used when none is given: own namespace only. */
export const DEFAULT_TENANCY: TenancyPolicy = {};

/** The policy as it applies to the Applications of one namespace: computed once per plan. */
export type Tenancy = {
  readonly policy: TenancyPolicy;
  readonly namespace: string;
  /** Namespaces the Applications may write to (`*` among them: any). */
  readonly destinations: ReadonlySet<string>;
  /** Cluster-scoped kinds they may write, as `scopeKey`s (`*` among them: any). */
  readonly clusterKinds: ReadonlySet<string>;
};

const applies = (from: string, namespace: string): boolean => from === ANY || from === namespace;

/** `Kind` alone names the core group, as `scopeKey` writes it (`/Kind`). */
const kindKey = (kind: string): string => (kind === ANY || kind.includes('/') ? kind : `/${kind}`);

/** The rules of `policy` (default: `DEFAULT_TENANCY`) for Applications in `namespace`. */
export const tenancyFor = (policy: TenancyPolicy | undefined, namespace: string): Tenancy => {
  const effective = policy ?? DEFAULT_TENANCY;
  return {
    policy: effective,
    namespace,
    destinations: new Set([
      namespace,
      ...(effective.destinations ?? []).filter((rule) => applies(rule.from, namespace)).flatMap((rule) => rule.to),
    ]),
    clusterKinds: new Set(
      (effective.clusterKinds ?? [])
        .filter((rule) => applies(rule.from, namespace))
        .flatMap((rule) => rule.kinds.map(kindKey)),
    ),
  };
};

/** Why the Applications may not write the object at `ref`, or `undefined` when they may. */
export const targetViolation = (tenancy: Tenancy, ref: ObjectRef): ForbiddenAction | undefined => {
  if (ref.namespace === undefined) {
    const key = scopeKey(ref.apiVersion, ref.kind);
    return tenancy.clusterKinds.has(ANY) || tenancy.clusterKinds.has(key)
      ? undefined
      : forbidden(
          ref,
          'ClusterScoped',
          `${key.replace(/^\//, '')} is cluster-scoped and not allowed for Applications in ${tenancy.namespace} (policy clusterKinds: ${[...tenancy.clusterKinds].join(', ') || 'none'})`,
        );
  }
  return tenancy.destinations.has(ANY) || tenancy.destinations.has(ref.namespace)
    ? undefined
    : forbidden(
        ref,
        'Destination',
        `namespace ${ref.namespace} is not an allowed destination for Applications in ${tenancy.namespace} (policy destinations: ${[...tenancy.destinations].join(', ')})`,
      );
};

/** Whether the Applications may write (create, patch, delete) `object`: prunes and deletions never leave these. */
export const mayWrite =
  (tenancy: Tenancy) =>
  (object: JsonObject): boolean =>
    // Called on plan entries, which are resources (typed JsonObject by the delta).
    allowedTarget(tenancy, object as Resource);

/**
 * `targetViolation(tenancy, refOf(resource)) === undefined`, without building either (asked for every child of every
 * plan).
 */
const allowedTarget = (tenancy: Tenancy, resource: Resource): boolean => {
  const namespace = resource.metadata.namespace;
  if (namespace === undefined)
    return tenancy.clusterKinds.has(ANY) || tenancy.clusterKinds.has(scopeKey(resource.apiVersion, resource.kind));
  return tenancy.destinations.has(ANY) || tenancy.destinations.has(namespace);
};

/** Whether `spec.adopt` may take over an unowned object at `ref`. */
export const mayAdopt = (tenancy: Tenancy, ref: ObjectRef): boolean => {
  const rule = tenancy.policy.adoption ?? 'ownNamespace';
  return rule === 'destinations'
    ? targetViolation(tenancy, ref) === undefined
    : rule === 'ownNamespace' && ref.namespace === tenancy.namespace;
};

/**
 * The desired children the policy forbids, each with its rule and reason: outside the allowed
 * destinations, of a cluster-scoped kind not allowed, or (with `spec.adopt`) an existing unowned
 * object where adoption is not allowed. Empty when the Application may be applied.
 */
export const forbiddenChildren = (args: {
  readonly tenancy: Tenancy;
  readonly desired: ReadonlyArray<Resource>;
  /** The live objects; without them adoption cannot be judged (and nothing is adopted). */
  readonly live: ReadonlyArray<Resource> | undefined;
  readonly adopt: boolean;
}): ReadonlyArray<ForbiddenAction> => {
  const liveOf = args.adopt && args.live !== undefined ? finder(args.live) : () => undefined;
  return args.desired.flatMap((resource) => {
    if (!args.adopt && allowedTarget(args.tenancy, resource)) return NOTHING_FORBIDDEN;
    const ref = refOf(resource);
    const violation = targetViolation(args.tenancy, ref);
    if (violation !== undefined) return [violation];
    const live = liveOf(resource);
    if (live === undefined || ownerOf(live) !== undefined || mayAdopt(args.tenancy, ref)) return [];
    return [
      forbidden(
        ref,
        'Adoption',
        `spec.adopt may not take over ${showRef(ref)}: the policy allows adoption ${adoptionScope(args.tenancy.policy)}`,
      ),
    ];
  });
};

const NOTHING_FORBIDDEN: ReadonlyArray<ForbiddenAction> = [];

const finder = (live: ReadonlyArray<Resource>): ((resource: Resource) => Resource | undefined) => {
  const byKey = new Map(live.map((object) => [resourceKey(object), object]));
  return (resource) => byKey.get(resourceKey(resource));
};

const adoptionScope = (policy: TenancyPolicy): string => {
  const rule = policy.adoption ?? 'ownNamespace';
  return rule === 'never'
    ? 'nowhere'
    : rule === 'destinations'
      ? 'in allowed destinations only'
      : "in the Application's own namespace only";
};

const forbidden = (ref: ObjectRef, rule: ForbiddenRule, reason: string): ForbiddenAction => ({
  type: 'forbidden',
  ref,
  rule,
  reason,
  changes: [],
});

/** The Stalled message: every forbidden child with its reason. */
export const forbiddenMessage = (actions: ReadonlyArray<ForbiddenAction>): string =>
  `not allowed by the tenancy policy, nothing of this Application is written until the spec or policy changes: ${actions.map((a) => `${showRef(a.ref)} (${a.rule}: ${a.reason})`).join('; ')}`;

/**
 * Why Applications in `namespace` may not act as their namespace's ServiceAccount `name` under
 * `policy`, or `undefined` when they may. No `serviceAccounts` rule: any (Flux's model, the default);
 * with rules: only the names listed for the namespace (or `*`).
 */
export const serviceAccountViolation = (
  policy: TenancyPolicy | undefined,
  namespace: string,
  name: string,
): string | undefined => {
  const rules = policy?.serviceAccounts;
  if (rules === undefined) return undefined;
  const allowed = rules.filter((rule) => applies(rule.from, namespace)).flatMap((rule) => rule.names);
  return allowed.includes(ANY) || allowed.includes(name)
    ? undefined
    : `spec.serviceAccountName: ServiceAccount ${namespace}/${name} is not one Applications in ${namespace} may act as (policy serviceAccounts: ${allowed.join(', ') || 'none'}): name one of those, or ask the admin to allow it`;
};
