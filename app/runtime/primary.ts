/**
 * The embedded runtime's primary kinds: how an operator author's own object (a `Greeting`, a
 * `Database`) becomes the Application-shaped value the planner works on, and how kreconcile's part
 * of its status is written without touching the author's own status fields.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  KRECONCILE_STATUS_FIELDS,
  decodeApplication,
  getOwn,
  isJsonObject,
  issuesOf,
  kreconcileStatusFieldsOf,
  type Application,
  type Issue,
  type JsonObject,
  type JsonPatchOperation,
  type JsonValue,
  type Resource,
  type Memo,
} from '../../core/internal.js';
import { decodedApplication } from '../reconcile/reconcile-application.js';
import { DEFAULT_DESIRED_LIMITS, desiredProblem, type DesiredLimits } from './desired-guard.js';
import type { ManifestObject, PrimaryObject, UntypedSpec } from './kubernetes-object.js';
import { readStoredStatus } from '../status/stored-status.js';
import { defined } from '../../core/json/defined.js';

/** How `desired` is bounded (docs/runtime.md, Production checklist). */
export type DesiredGuard = {
  readonly limits?: Partial<DesiredLimits>;
  /** Monotonic ms to time `desired` with (default `performance.now`). */
  readonly monotonic?: () => number;
};

/**
 * What `desired` returns for one primary object: the children it wants (client-node models such as
 * `V1Deployment`, or object literals), and optionally how to compare them (docs/behaviour.md's observer
 * schema). Decoded like an Application's `spec` (JSON only, bounded): what does not decode is reported
 * on the primary (paths `spec.manifest[i]…`).
 */
export type DesiredState = {
  readonly manifest: ReadonlyArray<ManifestObject>;
  readonly observerSchema?: ReadonlyArray<ManifestObject>;
  /** Readiness rules in CEL for the children, as an Application's `spec.readiness` (docs/application.md). */
  readonly readiness?: ReadonlyArray<object>;
};

type PrimaryKind = { readonly apiVersion: string; readonly kind: string };

/**
 * An embedder's primary kind. `desired` is pure: the same object gives the same children. It may
 * throw: that, and what does not decode, ends as `Stalled InvalidSpec` on the object.
 *
 * With a `spec` codec (io-ts, or anything with `decode`), `desired` sees the decoded spec, typed: a
 * spec that does not decode never reaches `desired` and stalls the object naming the path
 * (`spec.replicas: expected number, got "3"`). Without one, `spec` is the stored JSON.
 */
export type PrimaryReconciler<Spec = UntypedSpec> = PrimaryKind &
  (
    | { readonly spec: t.Decoder<unknown, Spec>; readonly desired: (primary: PrimaryObject<Spec>) => DesiredState }
    | { readonly spec?: undefined; readonly desired: (primary: PrimaryObject<UntypedSpec>) => DesiredState }
  );

/** A primary kind as the Controller uses it (internal: build it with `primaryOf`). */
export type Primary = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly decode: (object: Resource) => E.Either<ReadonlyArray<Issue>, Application>;
  /** The status write for an object whose live status is `current`. */
  readonly statusPatch: (current: JsonValue | undefined, status: JsonObject) => ReadonlyArray<JsonPatchOperation>;
};

/**
 * Applications as the Controller's primary kind: decoded with the Application codec; the status is
 * all kreconcile's, written whole (`add /status`), exactly what it computed.
 */
export const APPLICATION_PRIMARY: Primary = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  decode: (object) => decodedApplication(object),
  statusPatch: (_current, status) => [{ op: 'add', path: '/status', value: status }],
};

/**
 * `APPLICATION_PRIMARY` decoding each object once while `memo` (a controller's) lives: an unchanged
 * object keeps its decoded Application, so the planner's memo recognises it.
 */
export const applicationPrimary = (memo: Memo): Primary => ({
  ...APPLICATION_PRIMARY,
  decode: (object) => decodedApplication(object, memo),
});

/** The status fields kreconcile owns on a primary (the Application status's fields); all others are the author's. */
export { KRECONCILE_STATUS_FIELDS } from '../../core/internal.js';

export const primaryOf = <Spec = UntypedSpec>(
  reconciler: PrimaryReconciler<Spec>,
  guard: DesiredGuard = {},
): Primary => {
  const limits: DesiredLimits = { ...DEFAULT_DESIRED_LIMITS, ...guard.limits };
  const monotonic = guard.monotonic ?? (() => performance.now());
  // Memoized per object: an unchanged object (same identity in the informer cache) is mapped once.
  const decoded = new WeakMap<Resource, E.Either<ReadonlyArray<Issue>, Application>>();
  return {
    apiVersion: reconciler.apiVersion,
    kind: reconciler.kind,
    decode: (object) => {
      const cached = decoded.get(object);
      if (cached !== undefined) return cached;
      const result = decodePrimary(reconciler, object, limits, monotonic);
      decoded.set(object, result);
      return result;
    },
    statusPatch: kreconcileStatusPatch,
  };
};

/**
 * The Application-shaped value for `object`: its metadata, `spec` = what `desired` returns, status =
 * kreconcile's fields of its status; decoded with the Application codec (paths name `spec.manifest…`),
 * then given the primary's apiVersion and kind, so finalizer, status and owner marks name the primary.
 */
const decodePrimary = <Spec>(
  reconciler: PrimaryReconciler<Spec>,
  object: Resource,
  limits: DesiredLimits,
  monotonic: () => number,
): E.Either<ReadonlyArray<Issue>, Application> => {
  const problem = (message: string): E.Either<ReadonlyArray<Issue>, Application> =>
    E.left([{ path: 'spec', message: `desired(${reconciler.kind}) ${message}` }]);
  let desired: unknown;
  const started = monotonic();
  try {
    if (reconciler.spec === undefined) desired = reconciler.desired({ ...object, spec: getOwn(object, 'spec') });
    else {
      const spec = reconciler.spec.decode(getOwn(object, 'spec'));
      if (E.isLeft(spec)) return E.left(issuesOf(spec.left, 'spec'));
      desired = reconciler.desired({ ...object, spec: spec.right });
    }
  } catch (error) {
    return problem(`threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  const tookMs = monotonic() - started;
  if (tookMs > limits.maxMs)
    return problem(
      `took ${Math.round(tookMs)} ms, more than ${limits.maxMs} ms: it blocks the whole operator while it runs (leases, watches); make it faster or raise desiredLimits.maxMs`,
    );
  try {
    const bounded = desiredProblem(desired, limits);
    // As JSON, the way client-node serialises its models: a `Date` becomes its RFC 3339 text, `undefined` fields go.
    return bounded === undefined
      ? shapePrimary(reconciler, object, JSON.parse(JSON.stringify(desired)))
      : problem(bounded);
  } catch (error) {
    // A getter that throws, a Proxy, a stack overflow on deep data: still the value's defect, reported on the object.
    return problem(`returned a value that cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
};

const shapePrimary = (
  reconciler: PrimaryKind,
  object: Resource,
  desired: unknown,
): E.Either<ReadonlyArray<Issue>, Application> => {
  if (!isJsonObject(desired) || !Array.isArray(getOwn(desired, 'manifest'))) {
    return E.left([
      { path: 'spec', message: `desired(${reconciler.kind}) must return { manifest: [...], observerSchema?: [...] }` },
    ]);
  }
  const state = desired;
  const observerSchema = getOwn(state, 'observerSchema');
  const readiness = getOwn(state, 'readiness');
  const liveStatus = isJsonObject(object.status) ? readStoredStatus(object.status) : undefined;
  const status = liveStatus === undefined ? undefined : kreconcileStatusFieldsOf(liveStatus);
  const shaped = {
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: object.metadata,
    spec: {
      manifest: getOwn(state, 'manifest'),
      ...defined({ observerSchema, readiness }),
    },
    ...defined({ status }),
  };
  return E.map((application: Application): Application => ({
    ...application,
    apiVersion: object.apiVersion,
    kind: object.kind,
  }))(decodeApplication(shaped));
};

/**
 * A JSON Patch that adds or replaces kreconcile's status fields one by one (and removes those it no
 * longer has), so the author's own status fields are never replaced; the whole `/status` only when
 * the object has none yet. A JSON Patch, not a merge patch: the observer schema's `null` leaves survive.
 */
export const kreconcileStatusPatch = (
  current: JsonValue | undefined,
  status: JsonObject,
): ReadonlyArray<JsonPatchOperation> => {
  if (!isJsonObject(current)) return [{ op: 'add', path: '/status', value: status }];
  const fields = status;
  return KRECONCILE_STATUS_FIELDS.flatMap((field): ReadonlyArray<JsonPatchOperation> => {
    const value = getOwn(fields, field);
    if (value !== undefined) return [{ op: 'add', path: `/status/${field}`, value }];
    return getOwn(current, field) === undefined ? [] : [{ op: 'remove', path: `/status/${field}` }];
  });
};
