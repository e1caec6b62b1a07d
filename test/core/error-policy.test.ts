/**
 * 403s classified by cause (issue 25, A), with kube-apiserver 1.36's exact words: an admission
 * refusal naming a state that passes (a terminating CRD or namespace) is retried with backoff and
 * carries the server's reason; an RBAC denial stays terminal and names the missing right.
 */
import { describe, expect, it } from 'vitest';
import {
  clusterError,
  errorPolicy,
  missingRightOf,
  temporaryRefusalOf,
  type ClusterError,
} from '../../core/internal.js';

// apiextensions-apiserver forbidCreateAdmission (customresource_handler.go), as seen in the fault run.
const crdTerminating = clusterError(
  'Forbidden',
  'gadgets.chaos.io "app-3-gadget" is forbidden: create not allowed while custom resource definition is terminating',
  { code: 403 },
);
// NamespaceLifecycle admission (apiserver plugin/namespace/lifecycle), with its cause.
const namespaceTerminating = clusterError(
  'Forbidden',
  'configmaps "c" is forbidden: unable to create new content in namespace team because it is being terminated',
  {
    code: 403,
    causes: [
      { reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' },
    ],
  },
);
// RBAC (responsewriters.forbiddenMessage).
const rbacDenied = clusterError(
  'Forbidden',
  'gadgets.chaos.io is forbidden: User "system:serviceaccount:kreconcile:operator" cannot create resource "gadgets" in API group "chaos.io" in the namespace "team"',
  { code: 403 },
);
const rbacClusterScope = clusterError(
  'Forbidden',
  'clusterroles.rbac.authorization.k8s.io "x" is forbidden: User "alice" cannot get resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
  { code: 403 },
);
const webhookDenied = clusterError(
  'Forbidden',
  'admission webhook "deny.example.com" denied the request: create not allowed while custom resource definition is terminating, says the webhook',
  { code: 403 },
);

describe('403s by cause', () => {
  it('a terminating CRD or namespace is retried with backoff, with the server reason and words', () => {
    for (const [error, reason] of [
      [crdTerminating, 'CustomResourceDefinitionTerminating'],
      [namespaceTerminating, 'NamespaceTerminating'],
    ] as const) {
      const decision = errorPolicy(error, 3, 0.5);
      expect(decision).toMatchObject({ _tag: 'Retry', refusal: { reason, message: error.message } });
      // Ordinary backoff for attempt 3 (base 500 ms: 2 000 ms, half jittered).
      expect(decision._tag === 'Retry' && decision.afterMs).toBe(1_500);
    }
  });

  it('the namespace cause alone is enough (the server says so in details.causes)', () => {
    const worded = clusterError('Forbidden', 'something else entirely', {
      causes: namespaceTerminating.causes ?? [],
    });
    expect(temporaryRefusalOf(worded)?.reason).toBe('NamespaceTerminating');
  });

  it('an RBAC denial is terminal and names the missing right', () => {
    expect(errorPolicy(rbacDenied, 1, 0)).toEqual({
      _tag: 'Terminal',
      reason: 'Forbidden',
      detail: 'missing right: create gadgets.chaos.io in namespace team',
    });
    expect(missingRightOf(rbacClusterScope)).toBe('get clusterroles.rbac.authorization.k8s.io cluster-wide');
  });

  it('any other 403 (a webhook, a policy) stays terminal: nothing says it passes', () => {
    expect(errorPolicy(webhookDenied, 1, 0)).toEqual({ _tag: 'Terminal', reason: 'Forbidden' });
    expect(temporaryRefusalOf(webhookDenied)).toBeUndefined();
  });

  it('the temporary words on another status are not a refusal', () => {
    const notForbidden: ClusterError = { ...crdTerminating, _tag: 'BadRequest', code: 400 };
    expect(temporaryRefusalOf(notForbidden)).toBeUndefined();
    expect(missingRightOf({ ...rbacDenied, _tag: 'Unauthorized', code: 401 })).toBeUndefined();
  });
});
