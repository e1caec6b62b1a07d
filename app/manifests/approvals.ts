/**
 * Approvals from outside the change, in the operator (docs/decisions/0026): setting or changing
 * `kreconcile.io/approve` on an Application takes the custom RBAC verb `approve` on
 * `applications.kreconcile.io`, which editing an Application (`update`, `patch`) does not give.
 * The API server checks it at admission with a ValidatingAdmissionPolicy whose CEL asks its own
 * authorizer about the requesting user, so no webhook runs and no annotation's author has to be
 * guessed afterwards. `kreconcile rbac` prints these with the operator's RBAC.
 */
import { APPROVE_ANNOTATION, type Resource } from '../../core/internal.js';
import { denyBinding, failClosedPolicy } from './admission-binding.js';

const APPLICATION_GROUP = 'kreconcile.io';

/** The name of the policy, its binding and the ClusterRole of approvers. */
export const APPROVALS_POLICY = 'kreconcile-approvals';
export const APPROVER_ROLE = 'kreconcile-approver';
/** The custom verb: RBAC grants any verb string, and only the policy below asks for this one. */
export const APPROVE_VERB = 'approve';

const annotationOf = (object: string): string =>
  `${object} != null && has(${object}.metadata.annotations) && '${APPROVE_ANNOTATION}' in ${object}.metadata.annotations ? ${object}.metadata.annotations['${APPROVE_ANNOTATION}'] : ''`;

/**
 * The policy: a CREATE or UPDATE of an Application that sets `kreconcile.io/approve` to a value it
 * did not have is allowed only when the requesting user may `approve` that Application. Removing
 * an approval, and every other edit (a re-apply keeping the annotation as an approver left it),
 * passes. `failurePolicy: Fail`: a policy that cannot be evaluated refuses.
 */
export const approvalsPolicy = (name = APPROVALS_POLICY): Resource =>
  failClosedPolicy(name, {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [APPLICATION_GROUP],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['applications'],
        },
      ],
    },
    variables: [
      { name: 'approval', expression: annotationOf('object') },
      { name: 'previous', expression: annotationOf('oldObject') },
    ],
    validations: [
      {
        expression: `variables.approval == '' || variables.approval == variables.previous || authorizer.group('${APPLICATION_GROUP}').resource('applications').namespace(object.metadata.namespace).name(object.metadata.name).check('${APPROVE_VERB}').allowed()`,
        messageExpression: `'setting ${APPROVE_ANNOTATION} takes the RBAC verb ${APPROVE_VERB} on applications.${APPLICATION_GROUP} (ClusterRole ${APPROVER_ROLE}), which ' + request.userInfo.username + ' lacks: editing an Application does not approve its plans (docs/decisions/0026)'`,
        reason: 'Forbidden',
      },
    ],
  });

/** The binding that enforces the policy (Deny), optionally only in namespaces matching `namespaceSelector`. */
export const approvalsPolicyBinding = (
  name = APPROVALS_POLICY,
  policyName = APPROVALS_POLICY,
  namespaceSelector?: Readonly<Record<string, string>>,
): Resource => denyBinding(name, policyName, namespaceSelector);

/**
 * The approvers' ClusterRole: read Applications, annotate them (`patch`) and `approve`. Bind it
 * with a RoleBinding per namespace, or a ClusterRoleBinding for a platform team.
 */
export const approverRole = (): Resource => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: APPROVER_ROLE },
  rules: [
    {
      apiGroups: [APPLICATION_GROUP],
      resources: ['applications'],
      verbs: ['get', 'list', 'watch', 'patch', APPROVE_VERB],
    },
  ],
});

/** Everything approvals need, as `kreconcile rbac` prints it. */
export const approvalManifests = (): ReadonlyArray<Resource> => [
  approverRole(),
  approvalsPolicy(),
  approvalsPolicyBinding(),
];
