/**
 * The object types an operator author writes `desired` and tests with. Structural on purpose: the
 * runtime does not depend on @kubernetes/client-node, yet its models (`V1Deployment`, `V1ConfigMap`, …)
 * are assignable to these types, and so are plain object literals (test/app/runtime/kubernetes-object.test.ts
 * proves both). What these types admit is still decoded where it enters (docs/runtime.md).
 */
import type { JsonValue, ObjectMeta } from '../../core/internal.js';

/** The metadata fields kreconcile reads; client-node's `V1ObjectMeta` is assignable. */
export type KubernetesObjectMeta = {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: { readonly [key: string]: string };
  readonly annotations?: { readonly [key: string]: string };
  readonly finalizers?: ReadonlyArray<string>;
  readonly ownerReferences?: ReadonlyArray<{
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly uid: string;
    readonly controller?: boolean;
    readonly blockOwnerDeletion?: boolean;
  }>;
};

/** Any Kubernetes object as client-node types it (its own `KubernetesObject` is assignable, and every model). */
export type KubernetesObject = {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: KubernetesObjectMeta;
};

/**
 * One object of a manifest: a client-node model, or an object literal with the kind's own fields
 * (`data`, `spec`, …). Two members because a class instance has no index signature and an object
 * literal with `data` would be an excess property of `KubernetesObject` alone; a misspelt metadata
 * field is still an error.
 */
export type ManifestObject = KubernetesObject | (KubernetesObject & { readonly [field: string]: unknown });

/** What the JSON an author reads is, for a field the spec decoder does not type: `spec` absent is `undefined`. */
export type UntypedSpec = JsonValue | undefined;

/**
 * A primary object as `desired` sees it: the stored object (apiVersion, kind, metadata.name always
 * there) with its `spec` decoded by the reconciler's `spec` codec.
 */
export type PrimaryObject<Spec = UntypedSpec> = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec: Spec;
  readonly status?: JsonValue;
  readonly [field: string]: unknown;
};
