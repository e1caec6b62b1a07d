/** The Application custom resource (`kreconcile.io/v1alpha1`, docs/behaviour.md §1) and its codecs. */
import * as t from 'io-ts';
import { getOwn, isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { jsonObjectCodec, jsonValueCodec, patternStringCodec } from '../json/codecs.js';
import { Resource, type ObjectMeta } from './resource.js';
import type { ObserverSchema } from './observer-schema.js';

export const APPLICATION_API_VERSION = 'kreconcile.io/v1alpha1';
export const APPLICATION_KIND = 'Application';
export const FINALIZER = 'kreconcile.io/cleanup';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'kreconcile';
export const OWNER_ANNOTATION = 'kreconcile.io/owner';

export const HOOKS = ['complete', 'shutdown'] as const;
export type Hook = (typeof HOOKS)[number];

/** How patches of observed fields are sent (docs/application.md, `spec.applyMode`). */
export const APPLY_MODES = ['JsonPatch', 'ServerSideApply'] as const;
export type ApplyMode = (typeof APPLY_MODES)[number];

/** The field manager kreconcile's server-side applies are made as. */
export const FIELD_MANAGER = 'kreconcile';

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

/**
 * The spec as written (docs/application.md). Every field is also declared in `SPEC_FIELDS`
 * below (codec and CRD schema): the compiler refuses a field declared in one place only.
 */
export type ApplicationSpec = {
  readonly manifest?: ReadonlyArray<Resource>;
  readonly observerSchema?: ReadonlyArray<ObserverSchema>;
  readonly hooks?: ReadonlyArray<Hook>;
  readonly tosca?: JsonValue;
  readonly csar?: string;
  /** `spec.tosca`/`spec.csar` input values for `get_input`. */
  readonly toscaInputs?: JsonObject;
  /** Take over live objects that match a desired resource but carry no ownership mark. */
  readonly adopt?: boolean;
  /** Children are read and written as this ServiceAccount of the Application's namespace (impersonation). */
  readonly serviceAccountName?: string;
  /** How observed fields are patched: JSON Patch (default) or server-side apply. */
  readonly applyMode?: ApplyMode;
  /** With `ServerSideApply`: take fields over from other field managers instead of stalling on the conflict. */
  readonly forceConflicts?: boolean;
  /**
   * Nothing is written for this Application (no child, no finalizer) until it is false again; deletion still proceeds.
   */
  readonly suspend?: boolean;
  /**
   * `Correct` (default): drift of observed fields is patched back; `Report`: it is written to `status.drift` instead.
   */
  readonly driftPolicy?: DriftPolicy;
  /** Readiness rules in CEL over the live object `self`: a matching rule replaces kstatus for that child. */
  readonly readiness?: ReadonlyArray<ReadinessRuleSpec>;
  /** Other Applications that must be Ready before this one is planned (core/plan/depends-on.ts). */
  readonly dependsOn?: ReadonlyArray<DependsOnEntry>;
  /**
   * Stamp each workload's pod template with a digest of the ConfigMaps and Secrets of the manifest
   * it reads, so a change of their data rolls its pods (core/impact/config-digest.ts).
   */
  readonly rolloutOnConfigChange?: boolean;
};

/**
 * One `spec.dependsOn` entry: an Application by name, in this Application's namespace unless `namespace` says
 * otherwise.
 */
export type DependsOnEntry = { readonly name: string; readonly namespace?: string };

/** Most Applications one Application may depend on (the CRD's `maxItems`, the codec's bound). */
export const MAX_DEPENDS_ON = 32;

/** One `spec.readiness` entry as written (compiled by core/status/readiness-rules.ts). */
export type ReadinessRuleSpec = {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name?: string;
  readonly ready: string;
  readonly failed?: string;
  /** A duration such as `90s`, `5m` or `1h30m`. */
  readonly timeout?: string;
};

/** Longest CEL expression a readiness rule may hold (the CRD's `maxLength`; adapters/cel checks the same). */
export const MAX_READINESS_EXPRESSION_LENGTH = 1_024;
/** Most readiness rules one Application may carry. */
export const MAX_READINESS_RULES = 64;
/** A duration: one or more whole numbers each with a unit (`ms`, `s`, `m`, `h`), e.g. `90s`, `1h30m`. */
export const READINESS_TIMEOUT = /^([0-9]{1,9}(ms|s|m|h))+$/;

export type DriftPolicy = 'Correct' | 'Report';

/**
 * One observed field another actor changed, left in place under `driftPolicy: Report` (values masked as plans mask
 * them).
 */
export type DriftEntry = {
  readonly resource: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
  };
  readonly path: string;
  readonly live?: JsonValue;
  readonly desired?: JsonValue;
};

/**
 * An observed field left to the controller that owns it (core/plan/field-fights.ts): the live
 * object's managedFields name a known manager (docs/field-owners.md) as its owner.
 */
export type ContestedField = {
  readonly resource: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
  };
  readonly path: string;
  readonly manager: string;
  readonly subresource?: string;
  /** When the manager last wrote its fields (its managedFields entry's time). */
  readonly since?: string;
  readonly controller: string;
};

export type ApplicationStatus = {
  readonly observedGeneration?: number;
  readonly conditions?: ReadonlyArray<Condition>;
  readonly mangledObserverSchema?: ReadonlyArray<ObserverSchema>;
  readonly lastAppliedManifest?: ReadonlyArray<Resource>;
  readonly lastObservedManifest?: ReadonlyArray<JsonObject>;
  /** With `spec.driftPolicy: Report`: the drift found and left in place by the last reconcile. */
  readonly drift?: ReadonlyArray<DriftEntry>;
  /** Observed fields left to the controllers that own them (an HPA's replicas): not patched back. */
  readonly contestedFields?: ReadonlyArray<ContestedField>;
  /**
   * Children a readiness rule with a `timeout` is waiting for, each with when the wait began: kept
   * in the status so the timeout runs across reconciles and operator restarts.
   */
  readonly readinessWaits?: ReadonlyArray<ReadinessWait>;
};

/** A child not ready under a timed readiness rule since `since` (RFC 3339). */
export type ReadinessWait = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly since: string;
};

export type Application = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec: ApplicationSpec;
  readonly status?: ApplicationStatus;
};

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A namespace name: a DNS label (RFC 1123), at most 63 characters. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Whether `value` can name a ServiceAccount: a lower-case DNS subdomain (RFC 1123) of at most 253 characters. */
export const isServiceAccountName = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 253 && DNS_SUBDOMAIN.test(value);

/** A ServiceAccount name; it ends up in an `Impersonate-User` header, so nothing else gets through. */
export const ServiceAccountName = new t.Type<string, string, unknown>(
  'a ServiceAccount name (lower-case letters, digits, "-" and ".", at most 253 characters)',
  isServiceAccountName,
  (u, c) => (isServiceAccountName(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const jsonObject = jsonObjectCodec('object');
const jsonValue = jsonValueCodec('JSON value');

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

/** A string of `min` to `max` characters (as the CRD bounds it, so the CLI refuses what the API server would). */
const boundedString = (min: number, max: number): t.Type<string, string, unknown> =>
  new t.Type<string, string, unknown>(
    `a string of ${min} to ${max} characters`,
    (u): u is string => typeof u === 'string' && u.length >= min && u.length <= max,
    (u, c) => (typeof u === 'string' && u.length >= min && u.length <= max ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

const isDuration = (u: unknown): u is string => typeof u === 'string' && u.length <= 64 && READINESS_TIMEOUT.test(u);

/** A readiness timeout such as `90s`, `5m` or `1h30m`. */
const durationString = new t.Type<string, string, unknown>(
  'a duration such as 90s, 5m or 1h30m (units ms, s, m, h)',
  isDuration,
  (u, c) => (isDuration(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const dependsOnEntry = t.intersection([
  t.type({
    name: patternStringCodec(
      'an Application name (lower-case DNS subdomain, at most 253 characters)',
      DNS_SUBDOMAIN,
      253,
    ),
  }),
  t.partial({
    namespace: patternStringCodec('a namespace name (lower-case DNS label, at most 63 characters)', DNS_LABEL, 63),
  }),
]);

const dependsOnEntries = t.array(dependsOnEntry);

/**
 * `spec.dependsOn`: at most `MAX_DEPENDS_ON` entries, no Application named twice (the namespace left out or written
 * out).
 */
const dependsOnList = new t.Type<ReadonlyArray<DependsOnEntry>, ReadonlyArray<DependsOnEntry>, unknown>(
  `a list of at most ${MAX_DEPENDS_ON} Applications ({name, namespace?}), each named once`,
  (u): u is ReadonlyArray<DependsOnEntry> => dependsOnEntries.is(u) && u.length <= MAX_DEPENDS_ON,
  (u, c) => {
    // Under the array codec's own entry (an empty key): issues then name the entry's position.
    const inArray = t.appendContext(c, '', dependsOnEntries, u);
    const decoded = dependsOnEntries.validate(u, inArray);
    if (decoded._tag === 'Left') return decoded;
    const entries = decoded.right;
    if (entries.length > MAX_DEPENDS_ON)
      return t.failure(u, c, `at most ${MAX_DEPENDS_ON} entries, got ${entries.length}: depend on fewer Applications`);
    const twice = entries.findIndex((entry, i) =>
      entries.slice(0, i).some((earlier) => sameDependency(earlier, entry)),
    );
    return twice < 0
      ? t.success(entries)
      : t.failure(
          entries[twice],
          t.appendContext(inArray, String(twice), dependsOnEntry, entries[twice]),
          `the Application ${entries[twice]?.namespace ?? ''}${entries[twice]?.namespace === undefined ? '' : '/'}${entries[twice]?.name ?? ''} is named twice: remove this entry`,
        );
  },
  t.identity,
);

/**
 * Whether two entries name the same Application: an entry without namespace names the own one, so only equal namespaces
 * (or both absent) match.
 */
const sameDependency = (a: DependsOnEntry, b: DependsOnEntry): boolean =>
  a.name === b.name && a.namespace === b.namespace;

/** An OpenAPI v3 structural schema fragment, as a CustomResourceDefinition carries it. */
export type StructuralSchema = JsonObject;

/** How one spec field is decoded (CLI and operator) and how the CRD describes it to the API server. */
export type SpecField = { readonly codec: t.Mixed; readonly schema: StructuralSchema };

/** Free-form content: the API server keeps it as written (manifests, observer schemas). */
const freeFormObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as const;

/**
 * THE declaration of the spec's fields: the codec that decodes each, the CRD's structural schema
 * (`kreconcile crd`), and the known names `validate` checks typos against. Add a field here and
 * to `ApplicationSpec`; document it in docs/application.md.
 */
export const SPEC_FIELDS = {
  manifest: {
    codec: t.array(Resource),
    schema: { type: 'array', description: 'Kubernetes resources of any kind.', items: freeFormObject },
  },
  observerSchema: {
    // Checked in depth (markers, list controls, matching) by `validateObserverSchema`.
    codec: t.array(jsonObject),
    schema: {
      type: 'array',
      description: 'Krake-format observer schemas, at most one per resource; observed fields marked true (or null).',
      items: freeFormObject,
    },
  },
  hooks: {
    codec: t.array(t.keyof({ complete: null, shutdown: null } satisfies Record<Hook, null>)),
    schema: {
      type: 'array',
      description: 'Hooks injected into the workloads.',
      items: { type: 'string', enum: [...HOOKS] },
    },
  },
  tosca: {
    codec: jsonValue,
    schema: { 'x-kubernetes-preserve-unknown-fields': true, description: 'TOSCA template: an inline object or a URL.' },
  },
  csar: {
    codec: t.string,
    schema: { type: 'string', description: 'URL of a CSAR archive.' },
  },
  toscaInputs: {
    codec: jsonObject,
    schema: { ...freeFormObject, description: 'Values of the TOSCA template inputs (get_input).' },
  },
  adopt: {
    codec: t.boolean,
    schema: { type: 'boolean', description: 'Take over existing objects that carry no ownership mark.' },
  },
  serviceAccountName: {
    codec: ServiceAccountName,
    schema: {
      type: 'string',
      maxLength: 253,
      pattern: DNS_SUBDOMAIN.source,
      description:
        'A ServiceAccount of this namespace: children are read and written as it (impersonation), so its RBAC applies.',
    },
  },
  applyMode: {
    codec: t.keyof({ JsonPatch: null, ServerSideApply: null } satisfies Record<ApplyMode, null>),
    schema: {
      type: 'string',
      enum: [...APPLY_MODES],
      description:
        'How observed fields are patched: JsonPatch (default) or ServerSideApply (field manager kreconcile).',
    },
  },
  forceConflicts: {
    codec: t.boolean,
    schema: {
      type: 'boolean',
      description:
        'With applyMode ServerSideApply: take conflicting fields over from other field managers instead of stalling.',
    },
  },
  driftPolicy: {
    codec: t.keyof({ Correct: null, Report: null } satisfies Record<DriftPolicy, null>),
    schema: {
      type: 'string',
      enum: ['Correct', 'Report'],
      description:
        'Correct (default): observed fields another actor changed are patched back. Report: they are left and listed in status.drift.',
    },
  },
  readiness: {
    codec: t.array(
      t.intersection([
        t.type({ kind: boundedString(1, 253), ready: boundedString(1, MAX_READINESS_EXPRESSION_LENGTH) }),
        t.partial({
          apiVersion: boundedString(1, 253),
          name: boundedString(1, 253),
          failed: boundedString(1, MAX_READINESS_EXPRESSION_LENGTH),
          timeout: durationString,
        }),
      ]),
    ),
    schema: {
      type: 'array',
      maxItems: MAX_READINESS_RULES,
      description:
        'Readiness rules: for the children a rule matches (kind, optional apiVersion and name), CEL expressions over the live object self replace kstatus.',
      items: {
        type: 'object',
        required: ['kind', 'ready'],
        properties: {
          apiVersion: { type: 'string', minLength: 1, maxLength: 253 },
          kind: { type: 'string', minLength: 1, maxLength: 253 },
          name: { type: 'string', minLength: 1, maxLength: 253 },
          ready: { type: 'string', minLength: 1, maxLength: MAX_READINESS_EXPRESSION_LENGTH },
          failed: { type: 'string', minLength: 1, maxLength: MAX_READINESS_EXPRESSION_LENGTH },
          timeout: { type: 'string', maxLength: 64, pattern: READINESS_TIMEOUT.source },
        },
      },
    },
  },
  dependsOn: {
    codec: dependsOnList,
    schema: {
      type: 'array',
      maxItems: MAX_DEPENDS_ON,
      description:
        "Applications that must be Ready (for their current generation) before this one is planned; namespace defaults to this Application's.",
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN.source },
          namespace: { type: 'string', minLength: 1, maxLength: 63, pattern: DNS_LABEL.source },
        },
      },
    },
  },
  suspend: {
    codec: t.boolean,
    schema: {
      type: 'boolean',
      description:
        'Write nothing for this Application (children, finalizer) until false again; deleting it still cleans up.',
    },
  },
  rolloutOnConfigChange: {
    codec: t.boolean,
    schema: {
      type: 'boolean',
      description:
        'Stamp each workload pod template with a digest (annotation kreconcile.io/config-digest) of the ConfigMaps and Secrets of the manifest it reads, so a change of their data rolls its pods.',
    },
  },
} as const satisfies { readonly [K in keyof Required<ApplicationSpec>]: SpecField };

/** The spec's field names, in declaration order. */
export const specFieldNames = (): ReadonlyArray<string> => Object.keys(SPEC_FIELDS);

/** Codec of the spec, from `SPEC_FIELDS`; unknown fields are reported by `unknownFieldIssues`. */
export const ApplicationSpec = t.intersection([
  t.partial(Object.fromEntries<t.Mixed>(Object.entries(SPEC_FIELDS).map(([name, field]) => [name, field.codec]))),
  jsonObject,
]);

/** Why a stored `status.manifests` could not be read (app/status/stored-status.ts leaves `{unreadable}`). */
const unreadableReason = (value: unknown): string => {
  const reason = isJsonObject(value) ? getOwn(value, 'unreadable') : undefined;
  return typeof reason === 'string' ? reason : 'not in the stored form';
};

export const ApplicationStatus = t.partial({
  observedGeneration: t.number,
  conditions: t.array(Condition),
  mangledObserverSchema: t.array(jsonObject),
  lastAppliedManifest: t.array(Resource),
  lastObservedManifest: t.array(jsonObject),
  drift: t.array(jsonObject),
  contestedFields: t.array(jsonObject),
  readinessWaits: t.array(
    t.intersection([
      t.type({ apiVersion: t.string, kind: t.string, name: t.string, since: t.string }),
      t.partial({ namespace: t.string }),
    ]),
  ),
});

/**
 * The stored form of the three lists (`status.manifests`, app/status/stored-status.ts) is read back
 * before decoding: one left in place could not be read, and says why.
 */
const StoredManifestsRead = new t.Type<unknown, unknown, unknown>(
  'a status whose stored manifests were read back',
  (value): value is unknown => !isJsonObject(value) || getOwn(value, 'manifests') === undefined,
  (value, context) => {
    const stored = isJsonObject(value) ? getOwn(value, 'manifests') : undefined;
    return stored === undefined
      ? t.success(value)
      : t.failure(
          stored,
          [...context, { key: 'manifests', type: t.unknown, actual: stored }],
          `cannot be read: ${unreadableReason(stored)}`,
        );
  },
  (value) => value,
);

/** The status fields as stored: kreconcile's, with `manifests` in place of the three lists it packs. */
export const STORED_MANIFESTS_FIELD = 'manifests';

/** The status fields kreconcile owns; on an embedder's primary, the author's own fields sit beside them. */
export const KRECONCILE_STATUS_FIELDS: ReadonlyArray<string> = [
  ...Object.keys(ApplicationStatus.props),
  STORED_MANIFESTS_FIELD,
];

/** Only kreconcile's fields of a status object (those present). */
export const kreconcileStatusFieldsOf = (status: JsonObject): JsonObject =>
  objectFromEntries(
    KRECONCILE_STATUS_FIELDS.flatMap((field) => {
      const value = getOwn(status, field);
      return value === undefined ? [] : [[field, value] as const];
    }),
  );

export const Application = t.intersection([
  t.type({
    apiVersion: t.literal(APPLICATION_API_VERSION),
    kind: t.literal(APPLICATION_KIND),
    // Every metadata field `plan` reads is checked, so a decoded Application cannot make it throw.
    metadata: t.intersection([
      jsonObject,
      t.type({ name: t.string }),
      t.partial({
        namespace: t.string,
        generation: t.number,
        uid: t.string,
        finalizers: t.array(t.string),
        deletionTimestamp: t.string,
      }),
    ]),
    spec: ApplicationSpec,
  }),
  t.partial({ status: t.union([t.intersection([ApplicationStatus, StoredManifestsRead]), t.null]) }),
]);
