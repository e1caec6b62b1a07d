/** Error policy: whether a failed write is retried (and when) or stalls the Application. */
import type { ClusterError } from '../ports/errors.js';
import type { StalledReason } from './conditions.js';

export type ErrorDecision =
  | {
      readonly _tag: 'Retry';
      readonly afterMs: number;
      /** Why the server refused for now, when it said so (reported as `Reconciling` with this reason and message). */
      readonly refusal?: TemporaryRefusal;
    }
  | { readonly _tag: 'Terminal'; readonly reason: StalledReason; readonly detail?: string };

export type Backoff = { readonly baseMs: number; readonly capMs: number };

export const defaultBackoff: Backoff = { baseMs: 500, capMs: 5 * 60_000 };

/**
 * Exponential backoff per attempt (1-based) with "equal jitter": half fixed, half random,
 * capped; `jitter` in [0, 1) is an argument because the core has no randomness.
 */
export const backoffDelay = (attempt: number, jitter: number, backoff: Backoff = defaultBackoff): number => {
  const exponential = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * jitter);
};

/**
 * Retry vs terminal (controller-runtime `TerminalError`, kube-rs `error_policy`): permission and
 * input errors cannot be fixed by retrying; everything else backs off, honouring `Retry-After`.
 * A 422 from a guarded patch means a `test` guard failed: the object moved, so re-plan.
 * A 403 is classified by its cause (`temporaryRefusalOf`): an admission refusal that names a state
 * which passes (a terminating CRD or namespace) backs off; any other 403 (RBAC) is terminal.
 */
export const errorPolicy = (
  error: ClusterError,
  attempt: number,
  jitter: number,
  options: { readonly guardedPatch?: boolean; readonly backoff?: Backoff } = {},
): ErrorDecision => {
  const refusal = temporaryRefusalOf(error);
  if (refusal !== undefined) {
    const delay = backoffDelay(attempt, jitter, options.backoff);
    return { _tag: 'Retry', afterMs: Math.max(delay, error.retryAfterMs ?? 0), refusal };
  }
  if (error._tag === 'Forbidden' || error._tag === 'Unauthorized') {
    const right = missingRightOf(error);
    return {
      _tag: 'Terminal',
      reason: 'Forbidden',
      ...(right === undefined ? {} : { detail: `missing right: ${right}` }),
    };
  }
  const managers = conflictingManagers(error);
  if (managers.length > 0) return { _tag: 'Terminal', reason: 'Conflict', detail: conflictDetail(managers) };
  const unknown = unknownFieldsOf(error);
  if (unknown.length > 0) return { _tag: 'Terminal', reason: 'InvalidSpec', detail: unknownFieldDetail(unknown) };
  const immutable = immutableFieldsOf(error);
  if (immutable.length > 0) return { _tag: 'Terminal', reason: 'ImmutableField', detail: immutableDetail(immutable) };
  if (
    (error._tag === 'Invalid' || error._tag === 'BadRequest' || error._tag === 'UnsupportedMediaType') &&
    options.guardedPatch !== true
  ) {
    return { _tag: 'Terminal', reason: 'InvalidSpec' };
  }
  if (isUntypedApply(error)) return { _tag: 'Terminal', reason: 'InvalidSpec', detail: untypedApplyDetail(error) };
  const delay = backoffDelay(attempt, jitter, options.backoff);
  return { _tag: 'Retry', afterMs: Math.max(delay, error.retryAfterMs ?? 0) };
};

// kube-apiserver 1.36 answers a server-side apply whose object does not fit the kind's Go types
// (`replicas: "2"`, a number in ConfigMap data, bad base64) with 500 InternalError and these words,
// where a create or a JSON Patch gets 400/422: the same input error, which retrying cannot fix.
const UNTYPED_APPLY = /^failed to (create typed patch object|convert new object)/;

/** A server-side apply refused because its object does not fit the kind's types (a 500, but an input error). */
const isUntypedApply = (error: ClusterError): boolean => error._tag === 'Internal' && UNTYPED_APPLY.test(error.message);

// `.data.a: expected string, got &value.valueUnstructured{Value:5}`: the path and the type, never the value (a
// Secret's).
const EXPECTED_TYPE = /(\.[^\s:]+): expected (\w+)/g;
// `…: cannot convert float64 to int32`, `…: illegal base64 data at input byte 3`: the last clause names no value.
const CONVERSION = /: ((cannot convert \w+ to \w+)|(illegal base64 data at input byte \d+))$/;

const untypedApplyDetail = (error: ClusterError): string => {
  const fields = [...error.message.matchAll(EXPECTED_TYPE)].map(
    ([, path, type]) => `${path ?? ''}: expected ${type ?? 'another type'}`,
  );
  const conversion = CONVERSION.exec(error.message)?.[1];
  const what = fields.length > 0 ? fields.join(', ') : (conversion ?? "a value does not fit the field's type");
  return `the API server cannot apply it (${what}): fix the value's type in spec.manifest`;
};

// kube-apiserver's words under fieldValidation=Strict: `strict decoding error: unknown field "spec.replica"`
// (create, update, JSON and merge patches) and `.spec.replica: field not declared in schema` (server-side apply).
const STRICT_UNKNOWN = /unknown field "([^"]+)"|\.([^\s:,]+): field not declared in schema/g;

/**
 * The fields a strictly decoded write refused as unknown (a 400, also for a guarded patch: no
 * retry or re-plan can add a field to the kind, so it must not loop).
 */
export const unknownFieldsOf = (error: ClusterError): ReadonlyArray<string> =>
  error._tag !== 'BadRequest' && error._tag !== 'Invalid' && error._tag !== 'Internal'
    ? []
    : [...new Set([...error.message.matchAll(STRICT_UNKNOWN)].map(([, field, applied]) => field ?? applied ?? ''))];

const unknownFieldDetail = (fields: ReadonlyArray<string>): string =>
  `the API server does not know ${fields.length > 1 ? 'the fields' : 'the field'} ${fields.join(', ')} of this kind (strict field validation): fix or remove ${fields.length > 1 ? 'them' : 'it'} in spec.manifest (kreconcile validate names the closest known field)`;

// kube-apiserver's words for a field that cannot change once set (ValidateImmutableField, Service IPs).
const UNCHANGEABLE = /(field is immutable|may not change once set)$/;

/** The fields a 422 Invalid refuses to change, as the server names them (`spec.selector`). */
export const immutableFieldsOf = (error: ClusterError): ReadonlyArray<string> =>
  error._tag !== 'Invalid'
    ? []
    : [
        ...new Set(
          (error.causes ?? [])
            .filter((cause) => UNCHANGEABLE.test(cause.message))
            .map((cause) => cause.field ?? '(unnamed field)'),
        ),
      ];

const immutableDetail = (fields: ReadonlyArray<string>): string =>
  `${fields.join(', ')} cannot change once set (the API server refuses the patch): add the annotation kreconcile.io/recreate: "true" to this resource in spec.manifest to delete and recreate it, or restore the value`;

// kube-apiserver's words for a server-side apply conflict: `conflict with "kubectl-edit" using v1`.
const CONFLICT_WITH = /conflict with "([^"]*)"/;

/**
 * The field managers a server-side apply conflicts with (409, causes `FieldManagerConflict`); none for any other error.
 */
export const conflictingManagers = (error: ClusterError): ReadonlyArray<string> =>
  error._tag !== 'Conflict'
    ? []
    : [
        ...new Set(
          (error.causes ?? [])
            .filter((cause) => cause.reason === 'FieldManagerConflict')
            .map((cause) => CONFLICT_WITH.exec(cause.message)?.[1] ?? '(unnamed manager)'),
        ),
      ];

const conflictDetail = (managers: ReadonlyArray<string>): string =>
  `server-side apply conflicts with field manager${managers.length > 1 ? 's' : ''} ${managers.map((m) => `"${m}"`).join(', ')}: set spec.forceConflicts: true to take the fields over, or stop the other manager from writing them`;

/** A refusal the server says is temporary: the reason to report while retrying, and the server's words. */
export type TemporaryRefusal = { readonly reason: string; readonly message: string };

/**
 * 403s that are not about rights but about a state that passes, as kube-apiserver 1.36 words them.
 * Evidence (k8s.io v0.36.3 sources):
 * - apiextensions-apiserver pkg/apiserver/customresource_handler.go, `forbidCreateAdmission`: a create
 *   of a custom resource whose CRD has condition Terminating answers
 *   `403 Forbidden` `gadgets.chaos.io "g" is forbidden: create not allowed while custom resource definition is
 * terminating`
 *   (`apierrors.NewForbidden`, no causes). The CRD is gone moments later (then the kind is unknown),
 *   or it is reinstalled: either way retrying decides.
 * - apiserver pkg/admission/plugin/namespace/lifecycle/admission.go (NamespaceLifecycle): a create in
 *   a Terminating namespace answers `403 Forbidden`
 *   `configmaps "c" is forbidden: unable to create new content in namespace ns because it is being terminated`
 *   with `details.causes: [{reason: "NamespaceTerminating", field: "metadata.namespace"}]`.
 * An RBAC denial (apiserver pkg/endpoints/handlers/responsewriters/errors.go) reads
 * `… is forbidden: User "u" cannot create resource "gadgets" in API group "chaos.io" in the namespace "ns"`;
 * it and every other 403 (a webhook's denial, a policy) stay terminal: nothing says they pass.
 */
export const temporaryRefusalOf = (error: ClusterError): TemporaryRefusal | undefined => {
  if (error._tag !== 'Forbidden') return undefined;
  if (CRD_TERMINATING.test(error.message))
    return { reason: 'CustomResourceDefinitionTerminating', message: error.message };
  const namespaceCause = (error.causes ?? []).some((cause) => cause.reason === 'NamespaceTerminating');
  if (namespaceCause || NAMESPACE_TERMINATING.test(error.message))
    return { reason: 'NamespaceTerminating', message: error.message };
  return undefined;
};

const CRD_TERMINATING = /: create not allowed while custom resource definition is terminating$/;
const NAMESPACE_TERMINATING = /: unable to create new content in namespace \S+ because it is being terminated$/;

// kube-apiserver's RBAC words (responsewriters.forbiddenMessage), for a resource request in a
// namespace, at the cluster scope, and for a non-resource path.
const RBAC_DENIAL =
  /User "[^"]*" cannot (\S+) resource "([^"]*)" in API group "([^"]*)" (?:in the namespace "([^"]*)"|at the cluster scope)/;

/** The right an RBAC denial names (`create gadgets.chaos.io in namespace ns`); undefined for any other error. */
export const missingRightOf = (error: ClusterError): string | undefined => {
  if (error._tag !== 'Forbidden') return undefined;
  const denial = RBAC_DENIAL.exec(error.message);
  if (denial === null) return undefined;
  const [, verb, resource, group, namespace] = denial;
  const qualified = group === '' || group === undefined ? resource : `${resource}.${group}`;
  const where = namespace === undefined ? 'cluster-wide' : `in namespace ${namespace}`;
  return `${verb} ${qualified} ${where}`;
};
