/**
 * The tenancy policy document an admin gives the operator (`--policy`): its codec, strict about
 * unknown keys so a misspelt rule is an error instead of a silently narrower (or wider) policy.
 */
import * as t from 'io-ts';
import { isJsonObject } from '../json/json.js';
import { defined } from '../json/defined.js';

/** Wildcard in a policy rule: written explicitly, never implied. */
export const ANY = '*';

/** Applications in namespace `from` (or `*`) may write to the namespaces `to` (`*` = any). */
export type DestinationRule = { readonly from: string; readonly to: ReadonlyArray<string> };

/**
 * Applications in namespace `from` (or `*`) may write cluster-scoped objects of these kinds:
 * `group/Kind` (`rbac.authorization.k8s.io/ClusterRole`), `Kind` alone for the core group
 * (`Namespace`), or `*` for every cluster-scoped kind.
 */
export type ClusterKindRule = { readonly from: string; readonly kinds: ReadonlyArray<string> };

/**
 * Where `spec.adopt` may take over an existing unowned object: `ownNamespace` (default) only in
 * the Application's namespace, `destinations` wherever it may write, `never` nowhere.
 */
export type AdoptionRule = 'ownNamespace' | 'destinations' | 'never';

/**
 * Applications in namespace `from` (or `*`) may act as these ServiceAccounts of their own namespace
 * (`spec.serviceAccountName`; `*` = any). Without any rule, any ServiceAccount of the namespace
 * (Flux's model); with rules, only those listed for the namespace — a tenant who may create an
 * Application must not gain the rights of a ServiceAccount bound to `admin` just by naming it.
 */
export type ServiceAccountRule = { readonly from: string; readonly names: ReadonlyArray<string> };

/**
 * The admin's tenancy policy. Every Application may always write to its own namespace; the rules
 * only add. Tenants cannot set it: it comes from the operator's configuration.
 */
export type TenancyPolicy = {
  readonly destinations?: ReadonlyArray<DestinationRule>;
  readonly clusterKinds?: ReadonlyArray<ClusterKindRule>;
  readonly adoption?: AdoptionRule;
  readonly serviceAccounts?: ReadonlyArray<ServiceAccountRule>;
};

/** A value that is an object with no keys but `keys` (io-ts `exact` would drop them silently). */
const onlyKeys = <C extends t.Mixed>(
  codec: C,
  keys: ReadonlyArray<string>,
): t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown> =>
  new t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown>(
    codec.name,
    codec.is,
    (input, context) => {
      const unknown = isJsonObject(input) ? Object.keys(input).filter((key) => !keys.includes(key)) : [];
      if (unknown.length > 0)
        return t.failure(
          input,
          context,
          `unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}: expected ${keys.join(', ')}`,
        );
      return codec.validate(input, context);
    },
    codec.encode,
  );

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const NamespaceName = new t.Type<string, string, unknown>(
  'a namespace name or "*"',
  (u): u is string => typeof u === 'string' && (u === ANY || DNS_LABEL.test(u)),
  (u, c) =>
    typeof u === 'string' && (u === ANY || DNS_LABEL.test(u))
      ? t.success(u)
      : t.failure(u, c, `expected a namespace name (DNS label) or "*", got ${JSON.stringify(u)}`),
  t.identity,
);

const KindName = new t.Type<string, string, unknown>(
  'a kind: group/Kind, Kind (core group) or "*"',
  (u): u is string => typeof u === 'string' && /^([a-z0-9.-]+\/)?[A-Z][A-Za-z0-9]*$|^\*$/.test(u),
  (u, c) =>
    typeof u === 'string' && /^([a-z0-9.-]+\/)?[A-Z][A-Za-z0-9]*$|^\*$/.test(u)
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected group/Kind (e.g. rbac.authorization.k8s.io/ClusterRole), Kind for the core group, or "*", got ${JSON.stringify(u)}`,
        ),
  t.identity,
);

// A DNS subdomain, as ServiceAccount names are (core/model/application.ts `isServiceAccountName`).
const SERVICE_ACCOUNT = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const AccountName = new t.Type<string, string, unknown>(
  'a ServiceAccount name or "*"',
  (u): u is string => typeof u === 'string' && (u === ANY || (u.length <= 253 && SERVICE_ACCOUNT.test(u))),
  (u, c) =>
    typeof u === 'string' && (u === ANY || (u.length <= 253 && SERVICE_ACCOUNT.test(u)))
      ? t.success(u)
      : t.failure(u, c, `expected a ServiceAccount name or "*", got ${JSON.stringify(u)}`),
  t.identity,
);

const ServiceAccountRuleCodec = onlyKeys(t.type({ from: NamespaceName, names: t.readonlyArray(AccountName) }), [
  'from',
  'names',
]);

const DestinationRuleCodec = onlyKeys(t.type({ from: NamespaceName, to: t.readonlyArray(NamespaceName) }), [
  'from',
  'to',
]);
const ClusterKindRuleCodec = onlyKeys(t.type({ from: NamespaceName, kinds: t.readonlyArray(KindName) }), [
  'from',
  'kinds',
]);

/** The policy file: optionally `apiVersion: kreconcile.io/v1alpha1` and `kind: TenancyPolicy`, then the rules. */
export const TenancyPolicyDocument = onlyKeys(
  t.partial({
    apiVersion: t.literal('kreconcile.io/v1alpha1'),
    kind: t.literal('TenancyPolicy'),
    destinations: t.readonlyArray(DestinationRuleCodec),
    clusterKinds: t.readonlyArray(ClusterKindRuleCodec),
    adoption: t.keyof({ ownNamespace: null, destinations: null, never: null }),
    serviceAccounts: t.readonlyArray(ServiceAccountRuleCodec),
  }),
  ['apiVersion', 'kind', 'destinations', 'clusterKinds', 'adoption', 'serviceAccounts'],
);

/** The rules of a decoded policy document. */
export const policyOf = (document: t.TypeOf<typeof TenancyPolicyDocument>): TenancyPolicy => ({
  ...defined({
    destinations: document.destinations,
    clusterKinds: document.clusterKinds,
    adoption: document.adoption,
    serviceAccounts: document.serviceAccounts,
  }),
});
