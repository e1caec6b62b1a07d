/**
 * What the operator needs to write the RBAC objects Applications ship (issue 36 item 10). The API
 * server refuses a Role or ClusterRole granting a right its writer does not hold, and a binding to
 * a role whose rights its writer does not hold ("attempting to grant RBAC permissions not
 * currently held"), unless the writer may `escalate` or `bind`. Tightest first:
 * - the operator holds exactly the rules of the roles the Applications declare (a ClusterRole for
 *   the ClusterRoles' rules, a Role per namespace for the Roles'), so it can write those roles and
 *   can never write a role granting more; no `escalate`;
 * - `bind` only by name (`resourceNames`), for the roles bindings reference that the Applications
 *   do not declare (`view`, a platform role): the API server checks `bind` against the name;
 * - `escalate` only for an aggregated ClusterRole (its rules are the aggregation's, which no rule
 *   list can hold), on clusterroles unrestricted: a create cannot be limited by name (the object
 *   has no name in the request when it is authorized; checked on kube-apiserver 1.36 by
 *   test/integration/rbac-grants.test.ts).
 * Pure.
 */
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type Resource,
} from '../../core/internal.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** An RBAC object an Application declares, and the namespace it lands in (the Application's when it names none). */
export type DeclaredRbac = { readonly resource: Resource; readonly namespace: string };

export type GrantRule = JsonObject;

/** Rules the operator must hold: cluster-wide, and per namespace. */
export type RbacGrants = {
  readonly clusterRules: ReadonlyArray<GrantRule>;
  readonly namespaceRules: ReadonlyMap<string, ReadonlyArray<GrantRule>>;
  /** Wildcards among the rules the operator would hold: said aloud, never silently granted. */
  readonly wildcards: ReadonlyArray<string>;
};

const isRbac = (resource: Resource, kind: string): boolean =>
  resource.kind === kind && resource.apiVersion.startsWith(`${RBAC_GROUP}/`);

const rulesOf = (resource: Resource): ReadonlyArray<GrantRule> => {
  const rules = getOwn(resource, 'rules');
  return isJsonArray(rules) ? rules.filter(isJsonObject) : [];
};

const stringsAt = (object: JsonObject, key: string): ReadonlyArray<string> => {
  const value: JsonValue | undefined = getOwn(object, key);
  return isJsonArray(value) ? value.flatMap((item) => (typeof item === 'string' ? [item] : [])) : [];
};

const roleRefOf = (binding: Resource): { readonly kind: string; readonly name: string } | undefined => {
  const ref = getOwn(binding, 'roleRef');
  const kind = isJsonObject(ref) ? getOwn(ref, 'kind') : undefined;
  const name = isJsonObject(ref) ? getOwn(ref, 'name') : undefined;
  return typeof kind === 'string' && typeof name === 'string' ? { kind, name } : undefined;
};

const bindRule = (resource: 'roles' | 'clusterroles', names: ReadonlySet<string>): ReadonlyArray<GrantRule> =>
  names.size === 0
    ? []
    : [{ apiGroups: [RBAC_GROUP], resources: [resource], verbs: ['bind'], resourceNames: [...names].sort() }];

const wildcardsOf = (declared: DeclaredRbac): ReadonlyArray<string> =>
  rulesOf(declared.resource).some((rule) =>
    ['verbs', 'resources', 'apiGroups'].some((key) => stringsAt(rule, key).includes('*')),
  )
    ? [`${declared.resource.kind} ${declared.resource.metadata.name}`]
    : [];

/** Bindings' references to roles the Applications do not declare: `bind` by name is what they need. */
const undeclaredRefs = (declared: ReadonlyArray<DeclaredRbac>, kind: 'Role' | 'ClusterRole', namespace?: string) => {
  const declaredNames = new Set(
    declared
      .filter((d) => isRbac(d.resource, kind) && (namespace === undefined || d.namespace === namespace))
      .map((d) => d.resource.metadata.name),
  );
  const refs = declared.flatMap((d) => {
    const ref =
      isRbac(d.resource, 'RoleBinding') || isRbac(d.resource, 'ClusterRoleBinding') ? roleRefOf(d.resource) : undefined;
    const sameNamespace = namespace === undefined || d.namespace === namespace;
    return ref !== undefined && ref.kind === kind && sameNamespace && !declaredNames.has(ref.name) ? [ref.name] : [];
  });
  return new Set(refs);
};

/** The rights the operator needs for the declared RBAC objects (none when there are none). */
export const rbacGrants = (declared: ReadonlyArray<DeclaredRbac>): RbacGrants => {
  const clusterRoles = declared.filter((d) => isRbac(d.resource, 'ClusterRole'));
  const aggregated = clusterRoles.some((d) => getOwn(d.resource, 'aggregationRule') !== undefined);
  const clusterRules = [
    ...clusterRoles.flatMap((d) => rulesOf(d.resource)),
    ...bindRule('clusterroles', undeclaredRefs(declared, 'ClusterRole')),
    ...(aggregated ? [{ apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['escalate'] }] : []),
  ];
  const namespaces = [
    ...new Set(
      declared.filter((d) => isRbac(d.resource, 'Role') || isRbac(d.resource, 'RoleBinding')).map((d) => d.namespace),
    ),
  ].sort();
  const namespaceRules = new Map(
    namespaces
      .map(
        (namespace) =>
          [
            namespace,
            [
              ...declared
                .filter((d) => isRbac(d.resource, 'Role') && d.namespace === namespace)
                .flatMap((d) => rulesOf(d.resource)),
              ...bindRule('roles', undeclaredRefs(declared, 'Role', namespace)),
            ],
          ] as const,
      )
      .filter(([, rules]) => rules.length > 0),
  );
  return {
    clusterRules,
    namespaceRules,
    wildcards: declared
      .filter((d) => isRbac(d.resource, 'ClusterRole') || isRbac(d.resource, 'Role'))
      .flatMap(wildcardsOf),
  };
};

/** The declared RBAC objects of a manifest (ClusterRoles, Roles and their bindings), placed in their namespaces. */
export const declaredRbac = (manifest: ReadonlyArray<Resource>, namespace: string): ReadonlyArray<DeclaredRbac> =>
  manifest
    .filter((resource) =>
      ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].some((kind) => isRbac(resource, kind)),
    )
    .map((resource) => ({ resource, namespace: resource.metadata.namespace ?? namespace }));
