/** The Application custom resource (`kreconcile.io/v1alpha1`, SPEC section 1) and its codecs. */
import * as t from 'io-ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { Resource, type ObjectMeta } from './resource.js';
import type { ObserverSchema } from './observer-schema.js';

export const APPLICATION_API_VERSION = 'kreconcile.io/v1alpha1';
export const APPLICATION_KIND = 'Application';
export const FINALIZER = 'kreconcile.io/cleanup';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'kreconcile';
export const OWNER_ANNOTATION = 'kreconcile.io/owner';

export type Hook = 'complete' | 'shutdown';

export type ConditionType = 'Ready' | 'Reconciling' | 'Stalled';
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A kstatus condition (metav1.Condition shape). */
export type Condition = {
  readonly type: ConditionType;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
};

export type ApplicationSpec = {
  readonly manifest?: ReadonlyArray<Resource>;
  readonly observerSchema?: ReadonlyArray<ObserverSchema>;
  readonly hooks?: ReadonlyArray<Hook>;
  readonly tosca?: JsonValue;
  readonly csar?: string;
  /** Take over live objects that match a desired resource but carry no ownership mark. */
  readonly adopt?: boolean;
  /** Children are read and written as this ServiceAccount of the Application's namespace (impersonation). */
  readonly serviceAccountName?: string;
};

export type ApplicationStatus = {
  readonly observedGeneration?: number;
  readonly conditions?: ReadonlyArray<Condition>;
  readonly mangledObserverSchema?: ReadonlyArray<ObserverSchema>;
  readonly lastAppliedManifest?: ReadonlyArray<Resource>;
  readonly lastObservedManifest?: ReadonlyArray<JsonObject>;
};

export type Application = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec: ApplicationSpec;
  readonly status?: ApplicationStatus;
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `value` can name a ServiceAccount: a lower-case DNS subdomain (RFC 1123) of at most 253 characters. */
export const isServiceAccountName = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 253 && DNS_SUBDOMAIN.test(value);

/** A ServiceAccount name; it ends up in an `Impersonate-User` header, so nothing else gets through. */
export const ServiceAccountName = new t.Type<string, string, unknown>(
  'a ServiceAccount name (lower-case letters, digits, "-" and ".", at most 253 characters)',
  isServiceAccountName, (u, c) => (isServiceAccountName(u) ? t.success(u) : t.failure(u, c)), t.identity);

const jsonObject = new t.Type<JsonObject, JsonObject, unknown>(
  'object', (u): u is JsonObject => isJsonObject(u), (u, c) => (isJsonObject(u) ? t.success(u) : t.failure(u, c)), t.identity);

const jsonValue = new t.Type<JsonValue, JsonValue, unknown>('JSON value', (u): u is JsonValue => u !== undefined, (u, c) => (u === undefined ? t.failure(u, c) : t.success(u as JsonValue)), t.identity);

export const Condition = t.intersection([
  t.type({
    type: t.keyof({ Ready: null, Reconciling: null, Stalled: null }),
    status: t.keyof({ True: null, False: null, Unknown: null }),
    reason: t.string,
    message: t.string,
    lastTransitionTime: t.string,
  }),
  t.partial({ observedGeneration: t.number }),
]);

/** Codec of the spec; observer schemas are checked in depth by `validateObserverSchema`. */
export const ApplicationSpec = t.intersection([
  t.partial({
    manifest: t.array(Resource),
    observerSchema: t.array(jsonObject),
    hooks: t.array(t.keyof({ complete: null, shutdown: null })),
    tosca: jsonValue,
    csar: t.string,
    adopt: t.boolean,
    serviceAccountName: ServiceAccountName,
  }),
  jsonObject,
]);

export const ApplicationStatus = t.partial({
  observedGeneration: t.number,
  conditions: t.array(Condition),
  mangledObserverSchema: t.array(jsonObject),
  lastAppliedManifest: t.array(Resource),
  lastObservedManifest: t.array(jsonObject),
});

export const Application = t.intersection([
  t.type({
    apiVersion: t.literal(APPLICATION_API_VERSION),
    kind: t.literal(APPLICATION_KIND),
    // Every metadata field `plan` reads is checked, so a decoded Application cannot make it throw.
    metadata: t.intersection([jsonObject, t.type({ name: t.string }), t.partial({
      namespace: t.string, generation: t.number, uid: t.string, finalizers: t.array(t.string), deletionTimestamp: t.string,
    })]),
    spec: ApplicationSpec,
  }),
  t.partial({ status: t.union([ApplicationStatus, t.null]) }),
]);
