/**
 * A model of mutating admission (a MutatingAdmissionPolicy or a mutating webhook) for the in-memory
 * API server: functions registered per kind that rewrite an object on create and update, after
 * defaulting and before the kind's own rules and validation, as kube-apiserver orders them. Tests
 * use it to make the server store something other than what a client sent (a field stripped, a
 * value overridden); an unchanged result of an update is then a no-op write (no new resourceVersion).
 */
import type { Resource } from '../../../core/model/resource.js';
import type { KindInfo } from '../kinds/index.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE';

export type MutatingAdmission = {
  /** Shown nowhere but in tests: which policy this models. */
  readonly name: string;
  /** The kind it applies to (`''` for the core group). */
  readonly group: string;
  readonly kind: string;
  /** The object as admitted; `old` is the stored object on an update. */
  readonly mutate: (object: Resource, operation: AdmissionOperation, old?: Resource) => Resource;
};

/** `object` after every admission registered for its kind, in registration order. */
export const admitted = (
  admissions: ReadonlyArray<MutatingAdmission>,
  info: Pick<KindInfo, 'group' | 'kind'>,
  object: Resource,
  operation: AdmissionOperation,
  old?: Resource,
): Resource =>
  admissions.reduce(
    (current, admission) =>
      admission.group === info.group && admission.kind === info.kind
        ? admission.mutate(current, operation, old)
        : current,
    object,
  );
