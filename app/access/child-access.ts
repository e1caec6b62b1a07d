/**
 * Whose rights an Application's children are read and written with: the operator's own, or
 * (impersonation, as Flux's `spec.serviceAccountName`) a ServiceAccount of the Application's
 * namespace, so the API server applies the tenant's RBAC instead of the operator's.
 * The Application itself, its status and finalizer are always written as the operator.
 */
import {
  conditionsFor,
  isServiceAccountName,
  serviceAccountViolation,
  showRef,
  type Action,
  type Application,
  type Cluster,
  type ClusterError,
  type Plan,
  type StalledReason,
  type TenancyPolicy,
} from '../../core/internal.js';
import { defined } from '../../core/json/defined.js';

/** A ServiceAccount by namespace and name. */
export type ServiceAccountRef = { readonly namespace: string; readonly name: string };

/** The operator's rule for identities (flags `--default-service-account`, `--require-service-account`). */
export type ServiceAccountPolicy = {
  /** The ServiceAccount (in each Application's namespace) used when an Application names none. */
  readonly defaultServiceAccount?: string;
  /** Applications naming none, with no default, are not reconciled (Stalled `ServiceAccountRequired`). */
  readonly require?: boolean;
  /**
   * Which ServiceAccounts an Application may name (the admin's `--policy`, its `serviceAccounts`
   * rules; none: any of its namespace). The default account above is the admin's own choice.
   */
  readonly tenancy?: TenancyPolicy;
};

/** What the operator decided for one Application. */
export type ChildIdentity =
  | { readonly _tag: 'Operator' }
  | { readonly _tag: 'ServiceAccount'; readonly account: ServiceAccountRef }
  | { readonly _tag: 'Refused'; readonly reason: StalledReason; readonly message: string };

/** The seam the reconcile uses: the Cluster for this Application's children, or why there is none. */
export type ChildCluster =
  | { readonly _tag: 'Operator' }
  | { readonly _tag: 'Impersonated'; readonly cluster: Cluster; readonly account: ServiceAccountRef }
  | { readonly _tag: 'Refused'; readonly reason: StalledReason; readonly message: string };

export const OPERATOR: ChildCluster = { _tag: 'Operator' };

/**
 * The identity for `application`'s children under `policy`. The ServiceAccount's namespace is
 * always the Application's own: a tenant cannot borrow another namespace's account.
 * `spec.serviceAccountName` is tenant input and goes into a header: anything but a valid name is refused.
 */
export const childIdentity = (application: Application, policy: ServiceAccountPolicy): ChildIdentity => {
  const namespace = application.metadata.namespace ?? 'default';
  // The codec checked it; checked again here because it goes into a header.
  const named: unknown = application.spec.serviceAccountName;
  if (named !== undefined && !isServiceAccountName(named)) {
    return {
      _tag: 'Refused',
      reason: 'InvalidSpec',
      message:
        'spec.serviceAccountName: expected a ServiceAccount name (lower-case letters, digits, "-" and ".", at most 253 characters)',
    };
  }
  const violation = named === undefined ? undefined : serviceAccountViolation(policy.tenancy, namespace, named);
  if (violation !== undefined) return { _tag: 'Refused', reason: 'Forbidden', message: violation };
  const name = named ?? policy.defaultServiceAccount;
  if (name !== undefined) return { _tag: 'ServiceAccount', account: { namespace, name } };
  return policy.require === true
    ? {
        _tag: 'Refused',
        reason: 'ServiceAccountRequired',
        message: `this operator acts only as a tenant's ServiceAccount: set spec.serviceAccountName to a ServiceAccount of namespace ${namespace} that may manage these resources`,
      }
    : { _tag: 'Operator' };
};

/** `childClusterFor` for the reconcile: the policy's decision, with impersonating clients from `impersonate`. */
export const childClusters =
  (policy: ServiceAccountPolicy, impersonate: (account: ServiceAccountRef) => Cluster) =>
  (application: Application): ChildCluster => {
    const identity = childIdentity(application, policy);
    return identity._tag === 'ServiceAccount'
      ? { _tag: 'Impersonated', cluster: impersonate(identity.account), account: identity.account }
      : identity;
  };

/** A plan that changes nothing and reports why: the Application is Stalled, its status otherwise kept. */
export const refusedPlan = (application: Application, reason: StalledReason, message: string, now: string): Plan => {
  const generation = application.metadata.generation;
  const status = application.status ?? {};
  return {
    actions: [],
    summary: { create: 0, patch: 0, delete: 0, conflict: 0 },
    status: {
      ...status,
      ...defined({ observedGeneration: generation }),
      conditions: conditionsFor({
        verdict: { _tag: 'Stalled', reason, message },
        previous: status.conditions,
        now,
        generation,
      }),
    },
    // Nothing the operator retries can help; an edit (or the resync, after an RBAC change) brings it back.
    outcome: { _tag: 'AwaitChange' },
  };
};

const showAccount = (account: ServiceAccountRef): string => `ServiceAccount ${account.namespace}/${account.name}`;

// Only children are written as the ServiceAccount (finalizers and status are the operator's).
const childWrite = (action: Action | undefined): action is Action =>
  action !== undefined && ['create', 'patch', 'delete', 'recreate'].includes(action.type);

// The API server words a refused impersonation (the operator's own right) differently from a
// refused request of the impersonated user (the tenant's right).
const refusedImpersonation = (error: ClusterError): boolean => /cannot impersonate/.test(error.message);

/**
 * The Stalled message for a 403 met while acting as `account` (or, without one, as the operator
 * itself): who may not do what, and to whom. Undefined for any other failure (the usual error
 * policy applies).
 */
export const forbiddenMessage = (
  account: ServiceAccountRef | undefined,
  error: ClusterError,
  action?: Action,
): string | undefined => {
  if (error._tag !== 'Forbidden') return undefined;
  if (account !== undefined && refusedImpersonation(error)) {
    return `Forbidden: the operator may not impersonate ${showAccount(account)} (grant it impersonate on serviceaccounts in ${account.namespace}: see kreconcile rbac --help)`;
  }
  const who = account === undefined ? 'the operator' : showAccount(account);
  if (childWrite(action))
    return `Forbidden: ${who} may not ${action.type} ${showRef(action.ref)}${account === undefined ? ' (its RBAC: see kreconcile rbac --help)' : ''}`;
  return `Forbidden: ${who} may not read what this Application manages: ${error.message}`;
};

/** The ServiceAccount a ChildCluster acts as, if any. */
export const accountOf = (access: ChildCluster): ServiceAccountRef | undefined =>
  access._tag === 'Impersonated' ? access.account : undefined;

/**
 * `childClusterFor` with every impersonating client passed through `wrap`, given the Application it writes for (e.g.
 * the runtime's leader write fence, which must hold for children written as a tenant too, and its shard fence, which
 * is per Application).
 */
export const wrapImpersonated =
  (
    childClusterFor: (application: Application) => ChildCluster,
    wrap: (cluster: Cluster, application: Application) => Cluster,
  ) =>
  (application: Application): ChildCluster => {
    const access = childClusterFor(application);
    return access._tag === 'Impersonated' ? { ...access, cluster: wrap(access.cluster, application) } : access;
  };
