/** What the admission policies kreconcile installs share (docs/decisions/0026, 0029). */
import type { JsonObject, Resource } from '../../core/internal.js';

export const ADMISSION_API = 'admissionregistration.k8s.io/v1';

/** A binding that enforces `policyName` (Deny), optionally only in namespaces matching `namespaceSelector`. */
export const denyBinding = (
  name: string,
  policyName: string,
  namespaceSelector?: Readonly<Record<string, string>>,
): Resource => ({
  apiVersion: ADMISSION_API,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: {
    policyName,
    validationActions: ['Deny'],
    ...(namespaceSelector === undefined
      ? {}
      : { matchResources: { namespaceSelector: { matchLabels: namespaceSelector } } }),
  },
});

/** A ValidatingAdmissionPolicy that refuses when it cannot be evaluated (`failurePolicy: Fail`). */
export const failClosedPolicy = (name: string, spec: JsonObject): Resource => ({
  apiVersion: ADMISSION_API,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { failurePolicy: 'Fail', ...spec },
});
