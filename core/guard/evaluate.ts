/**
 * The one evaluator of guard policies (core/guard/policy.ts): `kreconcile plan --guard` and
 * `kreconcile apply --guard` in CI, and the operator (`kreconcile run --guard`) on every plan it
 * would carry out, decide with these functions, so a plan review refuses exactly what the operator
 * would refuse. Pure: plans in, verdicts out.
 */
import { isJsonArray, isJsonObject, type JsonValue } from '../json/json.js';
import { groupOf, showRef, type ObjectRef, type Resource } from '../model/resource.js';
import { withDigests } from '../sensitive/secret-values.js';
import { fromPointer } from '../json/path.js';
import { sha256Hex } from '../sensitive/sha256.js';
import type { Action } from '../model/plan.js';
import {
  parseFieldPath,
  type DenySelector,
  type GuardPolicy,
  type GuardRule,
  type GuardedActionType,
} from './policy.js';
import { defined } from '../json/defined.js';

/** An admin's approval of one denied plan: the Application annotated with the plan's digest. */
export const APPROVE_ANNOTATION = 'kreconcile.io/approve';

/** The Application a plan is for, as far as guards need it. */
export type GuardedApplication = {
  readonly namespace: string;
  readonly name: string;
  /** `kreconcile.io/approve`, when the Application carries it. */
  readonly approval?: string;
};

/** One Application's plan to judge. */
export type GuardSubject = { readonly application: GuardedApplication; readonly actions: ReadonlyArray<Action> };

/** One rule one action breaks. */
export type Violation = {
  readonly rule: string;
  readonly action: { readonly type: GuardedActionType; readonly ref: ObjectRef };
  /** Why, in words (`delete of v1/PersistentVolumeClaim shop/data`, `4 deletes in this Application, at most 3`). */
  readonly message: string;
};

/** What the guard concluded for one Application's plan. */
export type GuardVerdict = {
  readonly application: GuardedApplication;
  /**
   * The plan's digest (`planDigest`): what an approval names; empty when no rule can deny the plan (nothing to
   * approve).
   */
  readonly digest: string;
  /** The rules' violations; an approved plan's are kept here too, for the record. */
  readonly violations: ReadonlyArray<Violation>;
  /** The Application carries `kreconcile.io/approve` with this digest: the plan goes ahead despite `violations`. */
  readonly approved: boolean;
};

type Written = Extract<Action, { readonly type: GuardedActionType }>;

const isWritten = (action: Action): action is Written =>
  action.type === 'create' || action.type === 'patch' || action.type === 'delete' || action.type === 'recreate';

/** JSON with object keys sorted and absent values left out: one text per value, whatever built it. */
const canonical = (value: JsonValue | undefined): string => {
  if (value === undefined) return 'null';
  if (isJsonArray(value)) return `[${value.map((item) => canonical(item)).join(',')}]`;
  if (isJsonObject(value)) {
    const entries = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
};

const refJson = (ref: ObjectRef): JsonValue => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  name: ref.name,
  ...defined({ namespace: ref.namespace }),
});

/** A Secret's values as their digests (docs/decisions/0004): a plan digest is printed, the values never are. */
const masked = (ref: ObjectRef, value: JsonValue, path: string): JsonValue =>
  ref.apiVersion === 'v1' && ref.kind === 'Secret' && /^\/(data|stringData|metadata\/annotations)(\/|$)/.test(path)
    ? `sha256:${sha256Hex(new TextEncoder().encode(canonical(value)))}`
    : value;

const maskedBody = (body: Resource): JsonValue => withDigests(body);

/**
 * What a digest covers of an action: its type, object, full body (creations and recreations) or
 * every patch operation but the `test` guards (those name the live resourceVersion, which moves),
 * its reason or fields, and its field changes. Secret values enter as their digests. The same in
 * the operator, in `kreconcile plan` against the same cluster, and in a saved plan read back.
 */
const digestPart = (action: Written): JsonValue => ({
  type: action.type,
  ref: refJson(action.ref),
  ...(action.type === 'create' || action.type === 'recreate' ? { body: maskedBody(action.body) } : {}),
  ...(action.type === 'patch'
    ? {
        patch: action.patch
          .filter((op) => op.op !== 'test')
          .map((op) => (op.op === 'remove' ? op : { ...op, value: masked(action.ref, op.value, op.path) })),
      }
    : {}),
  ...(action.type === 'delete' ? { reason: action.reason } : {}),
  ...(action.type === 'recreate' ? { fields: [...action.fields] } : {}),
  changes: action.changes.map((change) => ({
    path: change.path,
    ...defined({ from: change.from, to: change.to }),
  })),
});

/** `sha256:<hex>` of a decoded guard policy: its rules, whatever the file's comments and layout. */
export const policyDigest = (policy: GuardPolicy): string =>
  `sha256:${sha256Hex(new TextEncoder().encode(canonical({ rules: policy.rules.map((rule) => ({ ...rule })) })))}`;

/** What a plan digest covers beyond the actions: whose plan, under which rules, and what they found. */
export type DigestScope = {
  readonly application: { readonly namespace: string; readonly name: string };
  /** The guard policy the plan was judged by (`policyDigest`), when one was. */
  readonly policy?: string;
  /** The rules' violations by this plan alone (the guard verdict an approval accepts). */
  readonly violations?: ReadonlyArray<Pick<Violation, 'rule' | 'message'>>;
};

/**
 * `sha256:<hex>` of an Application's plan: the Application, its write actions in order with their
 * full bodies, the guard policy and the violations it found. Two plans with the same digest write
 * the same objects in the same way under the same verdict, so approving a digest approves exactly
 * that plan: another body, image or namespace is another digest (issue 37).
 */
export const planDigest = (actions: ReadonlyArray<Action>, scope: DigestScope): string =>
  `sha256:${sha256Hex(
    new TextEncoder().encode(
      canonical({
        application: { namespace: scope.application.namespace, name: scope.application.name },
        policy: scope.policy ?? null,
        violations: (scope.violations ?? []).map((v) => ({ rule: v.rule, message: v.message })),
        actions: actions.filter(isWritten).map(digestPart),
      }),
    ),
  )}`;

/** `*` any run of characters, `?` one. */
const globMatches = (pattern: string, value: string): boolean => {
  const regex = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\-]/g, '\\$&')))
      .join('')}$`,
  );
  return regex.test(value);
};

/** `Kind` in any group, `group/Kind`, `core/Kind` (the core group), `*` anything. */
const kindMatches = (pattern: string, ref: ObjectRef): boolean => {
  if (pattern === '*') return true;
  const slash = pattern.indexOf('/');
  if (slash < 0) return pattern === ref.kind;
  const group = pattern.slice(0, slash);
  return pattern.slice(slash + 1) === ref.kind && (group === 'core' ? '' : group) === groupOf(ref.apiVersion);
};

/** The fields an action changes, as path steps: its explained changes and (patches) the operations' targets. */
const changedPaths = (action: Written): ReadonlyArray<ReadonlyArray<string>> => [
  ...action.changes.flatMap((change) => {
    const steps = parseFieldPath(change.path);
    return steps === undefined ? [] : [steps];
  }),
  ...(action.type === 'patch' ? action.patch.filter((op) => op.op !== 'test').map((op) => fromPointer(op.path)) : []),
  ...(action.type === 'recreate' ? action.fields.flatMap((field) => [field.split('.')]) : []),
];

const within = (steps: ReadonlyArray<string>, prefix: ReadonlyArray<string>): boolean =>
  prefix.length <= steps.length && prefix.every((step, i) => steps[i] === step);

/** The first path of `paths` the action changes, or `undefined`. */
const pathTouched = (paths: ReadonlyArray<string>, action: Written): string | undefined => {
  if (action.type !== 'patch' && action.type !== 'recreate') return undefined;
  const changed = changedPaths(action);
  return paths.find((path) => {
    const prefix = parseFieldPath(path);
    return prefix !== undefined && changed.some((steps) => within(steps, prefix));
  });
};

/** Why `deny` matches `action` (every selector given must), or `undefined` when it does not. */
const denial = (deny: DenySelector, action: Written): string | undefined => {
  if (deny.actions !== undefined && !deny.actions.includes(action.type)) return undefined;
  if (deny.kinds !== undefined && !deny.kinds.some((kind) => kindMatches(kind, action.ref))) return undefined;
  const namespace = action.ref.namespace;
  if (
    deny.namespaces !== undefined &&
    (namespace === undefined || !deny.namespaces.some((p) => globMatches(p, namespace)))
  )
    return undefined;
  if (deny.names !== undefined && !deny.names.some((pattern) => globMatches(pattern, action.ref.name)))
    return undefined;
  if (deny.paths === undefined) return `${action.type} of ${showRef(action.ref)}`;
  const path = pathTouched(deny.paths, action);
  return path === undefined ? undefined : `${action.type} of ${showRef(action.ref)} changes ${path}`;
};

/** A delete in the sense of `maxDeletes`: the object goes (a recreation deletes it first). */
const isDeletion = (action: Written): boolean => action.type === 'delete' || action.type === 'recreate';

const tooManyDeletes = (
  rule: GuardRule,
  deletions: ReadonlyArray<Written>,
  limit: number,
  where: string,
): ReadonlyArray<Violation> =>
  deletions.length <= limit
    ? []
    : deletions.map((action) => ({
        rule: rule.name,
        action: { type: action.type, ref: action.ref },
        message: `${action.type} of ${showRef(action.ref)}: ${deletions.length} deletes ${where}, at most ${limit}`,
      }));

/** The violations of the per-action and per-Application rules by one Application's plan. */
const applicationViolations = (policy: GuardPolicy, actions: ReadonlyArray<Written>): ReadonlyArray<Violation> =>
  policy.rules.flatMap((rule): ReadonlyArray<Violation> => {
    if ('deny' in rule)
      return actions.flatMap((action) => {
        const why = denial(rule.deny, action);
        return why === undefined
          ? []
          : [{ rule: rule.name, action: { type: action.type, ref: action.ref }, message: why }];
      });
    if ('maxDeletes' in rule)
      return tooManyDeletes(rule, actions.filter(isDeletion), rule.maxDeletes, 'in this Application');
    return [];
  });

type Judged = {
  readonly subject: GuardSubject;
  readonly written: ReadonlyArray<Written>;
  readonly digest: string;
  readonly approved: boolean;
  readonly own: ReadonlyArray<Violation>;
};

const judge = (policy: GuardPolicy, subject: GuardSubject): Judged => {
  const written = subject.actions.filter(isWritten);
  const own = applicationViolations(policy, written);
  // Hashing full bodies costs (pure-TS SHA-256): only a plan some rule may deny needs its digest.
  const deniable =
    own.length > 0 || (written.some(isDeletion) && policy.rules.some((rule) => 'maxDeletesPerPlan' in rule));
  const digest = deniable
    ? planDigest(written, { application: subject.application, policy: policyDigest(policy), violations: own })
    : '';
  return { subject, written, digest, approved: subject.application.approval === digest, own };
};

/** The verdict on one judged plan, given how many deletes the plan as a whole counts. */
const verdictOf = (policy: GuardPolicy, judged: Judged, deletesInPlan: number): GuardVerdict => {
  const planWide = judged.approved
    ? []
    : policy.rules.flatMap((rule) =>
        'maxDeletesPerPlan' in rule && deletesInPlan > rule.maxDeletesPerPlan
          ? judged.written.filter(isDeletion).map((action) => ({
              rule: rule.name,
              action: { type: action.type, ref: action.ref },
              message: `${action.type} of ${showRef(action.ref)}: ${deletesInPlan} deletes in the plan, at most ${rule.maxDeletesPerPlan}`,
            }))
          : [],
      );
  return {
    application: judged.subject.application,
    digest: judged.digest,
    approved: judged.approved,
    violations: [...judged.own, ...planWide],
  };
};

/**
 * The verdict on each Application's plan, in the order given. `maxDeletesPerPlan` counts the
 * deletes of every subject not approved. An Application whose `kreconcile.io/approve` names its
 * plan's digest is approved: its plan goes ahead, and its deletes count towards no plan-wide limit.
 */
export const evaluateGuard = (
  policy: GuardPolicy,
  subjects: ReadonlyArray<GuardSubject>,
): ReadonlyArray<GuardVerdict> => {
  const judged = subjects.map((subject) => judge(policy, subject));
  const deletesInPlan = judged
    .filter((entry) => !entry.approved)
    .reduce((sum, entry) => sum + entry.written.filter(isDeletion).length, 0);
  return judged.map((entry) => verdictOf(policy, entry, deletesInPlan));
};

/**
 * The verdict on one Application's plan alone (at runtime each plan is one Application's: `maxDeletesPerPlan` limits as
 * `maxDeletes` does).
 */
export const evaluateOne = (policy: GuardPolicy, subject: GuardSubject): GuardVerdict => {
  const judged = judge(policy, subject);
  return verdictOf(policy, judged, judged.approved ? 0 : judged.written.filter(isDeletion).length);
};

/** Whether a verdict stops its plan: violations, and no approval of this very plan. */
export const isDenied = (verdict: GuardVerdict): boolean => verdict.violations.length > 0 && !verdict.approved;

/** How many violations a message lists before it counts the rest. */
const LISTED = 5;

/**
 * The one-line account of a denial (the `GuardDenied` condition's message): the rules and
 * actions, and how to approve this plan.
 */
export const denialMessage = (verdict: GuardVerdict): string => {
  const listed = verdict.violations.slice(0, LISTED).map((v) => `rule ${JSON.stringify(v.rule)} denies ${v.message}`);
  const more = verdict.violations.length - listed.length;
  const { namespace, name } = verdict.application;
  return `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}; to let this plan through, an approver (RBAC verb approve on applications.kreconcile.io, docs/decisions/0026) runs: kubectl annotate applications.kreconcile.io -n ${namespace} ${name} --overwrite ${APPROVE_ANNOTATION}=${verdict.digest}`;
};

/**
 * The digest of one Application's plan as judged by `policy` (or by none): what a saved plan
 * records and `kreconcile apply` recomputes, so a guard record removed or edited, or a plan
 * applied under other rules, no longer matches (issue 37).
 */
export const judgedDigest = (
  policy: GuardPolicy | undefined,
  application: { readonly namespace: string; readonly name: string },
  actions: ReadonlyArray<Action>,
): string =>
  policy === undefined
    ? planDigest(actions, { application })
    : planDigest(actions, {
        application,
        policy: policyDigest(policy),
        violations: applicationViolations(policy, actions.filter(isWritten)),
      });
