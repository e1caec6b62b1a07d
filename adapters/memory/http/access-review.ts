/**
 * `kubectl auth can-i`: SelfSubjectAccessReview and SelfSubjectRulesReview
 * (authorization.k8s.io/v1). The memory API server authorises every request that authenticates
 * (it has no RBAC), so every review is allowed, with a reason that says why; the answer has the
 * shape kube-apiserver gives (201, the review with its status).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../core/json/json.js';

const PREFIX = '/apis/authorization.k8s.io/v1/';

export type AccessReview = 'selfsubjectaccessreviews' | 'selfsubjectrulesreviews';

/** The review a path creates, or undefined for any other path. */
export const accessReviewOf = (path: string): AccessReview | undefined => {
  if (path === `${PREFIX}selfsubjectaccessreviews`) return 'selfsubjectaccessreviews';
  if (path === `${PREFIX}selfsubjectrulesreviews`) return 'selfsubjectrulesreviews';
  return undefined;
};

const REASON = 'the kreconcile in-memory API server authorizes every authenticated request (it has no RBAC)';

const ALL = ['*'];

/** The review as created: its spec as sent, and a status that allows everything. */
export const answerAccessReview = (review: AccessReview, body: JsonValue): JsonObject => {
  const spec = isJsonObject(body) && isJsonObject(body.spec) ? body.spec : {};
  const base = { apiVersion: 'authorization.k8s.io/v1', metadata: {}, spec };
  if (review === 'selfsubjectaccessreviews')
    return { ...base, kind: 'SelfSubjectAccessReview', status: { allowed: true, reason: REASON } };
  return {
    ...base,
    kind: 'SelfSubjectRulesReview',
    status: {
      resourceRules: [{ verbs: ALL, apiGroups: ALL, resources: ALL }],
      nonResourceRules: [{ verbs: ALL, nonResourceURLs: ALL }],
      incomplete: false,
    },
  };
};
