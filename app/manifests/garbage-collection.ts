/**
 * Guards hold against the garbage collector (docs/decisions/0029): a child of an Application is
 * deleted only by its operator, after the plan that deletes it passed the guard policy and
 * `kreconcile.io/prune: disabled` (orphaned instead). `kubectl delete --cascade=foreground` makes
 * kube-controller-manager's garbage collector delete every dependent of the Application at once,
 * before the operator has planned anything: this ValidatingAdmissionPolicy refuses the garbage
 * collector's deletion of an object whose `kreconcile.io/owner` mark names the owner it cascades
 * from. The operator then deletes, orphans or keeps each child as its plan decides, and the
 * foreground deletion completes when no child is left blocking it.
 */
import { OWNER_ANNOTATION, PRUNE_ANNOTATION, type Resource } from '../../core/internal.js';
import { denyBinding, failClosedPolicy } from './admission-binding.js';

/** The policy's (and its binding's) name. */
export const GARBAGE_COLLECTION_POLICY = 'kreconcile-garbage-collection';

/**
 * Who the garbage collector deletes as: its own ServiceAccount when kube-controller-manager runs
 * with `--use-service-account-credentials` (kubeadm and managed clusters), else the controller
 * manager's identity, which its other controllers share (they send no uid precondition).
 */
export const GARBAGE_COLLECTOR_USERS: ReadonlyArray<string> = [
  'system:serviceaccount:kube-system:generic-garbage-collector',
  'system:kube-controller-manager',
];

const quoted = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * A request is the garbage collector's when its user is one of `users` and it deletes with a uid
 * precondition, as the garbage collector always does (so that it never deletes an object recreated
 * under the same name): the namespace controller and users send none.
 */
const byGarbageCollector = (users: ReadonlyArray<string>): string =>
  `request.userInfo.username in [${users.map(quoted).join(', ')}] && has(request.options.preconditions) && has(request.options.preconditions.uid)`;

/** `kreconcile.io/owner` of the object deleted, '' without one. */
const OWNER_MARK = `has(oldObject.metadata.annotations) && '${OWNER_ANNOTATION}' in oldObject.metadata.annotations ? oldObject.metadata.annotations['${OWNER_ANNOTATION}'] : ''`;

/**
 * The mark an owner reference's owner gives its children (core/manifest/ownership.ts `ownerMark`):
 * `namespace/name` for an Application, `Kind.group:namespace/name` (`Kind:` in the core group) for
 * an embedder's primary. A Deployment's ReplicaSet carries its Deployment's annotations, ours
 * included, but its owner is the Deployment, whose mark has a prefix: the collector may delete it.
 */
const MARK_OF_OWNER =
  `(r.apiVersion.startsWith('kreconcile.io/') && r.kind == 'Application' ? '' : ` +
  `r.kind + (r.apiVersion.contains('/') ? '.' + r.apiVersion.split('/')[0] : '') + ':') + ` +
  `oldObject.metadata.namespace + '/' + r.name`;

/**
 * The policy: a namespaced DELETE by the garbage collector of an object whose owner mark names one
 * of its owner references is refused. `failurePolicy: Fail`: a policy that cannot be evaluated
 * refuses (it matches the garbage collector's requests only, which it retries with backoff).
 */
export const garbageCollectionPolicy = (
  name = GARBAGE_COLLECTION_POLICY,
  users: ReadonlyArray<string> = GARBAGE_COLLECTOR_USERS,
): Resource =>
  failClosedPolicy(name, {
    matchConstraints: {
      resourceRules: [
        { apiGroups: ['*'], apiVersions: ['*'], operations: ['DELETE'], resources: ['*'], scope: 'Namespaced' },
      ],
    },
    matchConditions: [{ name: 'garbage-collector', expression: byGarbageCollector(users) }],
    variables: [{ name: 'mark', expression: OWNER_MARK }],
    validations: [
      {
        expression: `variables.mark == '' || !has(oldObject.metadata.ownerReferences) || !oldObject.metadata.ownerReferences.exists(r, variables.mark == ${MARK_OF_OWNER})`,
        messageExpression: `'the garbage collector may not delete ' + request.resource.resource + ' ' + oldObject.metadata.namespace + '/' + oldObject.metadata.name + ': kreconcile manages it (${OWNER_ANNOTATION}=' + variables.mark + '), and only its operator deletes it, under the guard policy and ${PRUNE_ANNOTATION} (docs/decisions/0029)'`,
        reason: 'Forbidden',
      },
    ],
  });

/** What `kreconcile rbac` and `kreconcile deploy` print for it. */
export const garbageCollectionManifests = (
  users: ReadonlyArray<string> = GARBAGE_COLLECTOR_USERS,
): ReadonlyArray<Resource> => [
  garbageCollectionPolicy(GARBAGE_COLLECTION_POLICY, users),
  denyBinding(GARBAGE_COLLECTION_POLICY, GARBAGE_COLLECTION_POLICY),
];
