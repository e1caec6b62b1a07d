/**
 * Keeping credentials out of everything but the API requests that write them: hook tokens, Secret
 * values and fields an observer schema marks sensitive (core/sensitive/marked.ts) never reach a plan's status
 * (persisted on the Application) or its field-level
 * explanations (printed, logged, turned into Events); `redactForDisplay` also masks them in the
 * create bodies and patches a printed plan shows. The one redaction mechanism of the project.
 */
import { isJsonObject, objectFromEntries, type JsonObject, type JsonValue } from '../json/json.js';
import { fromPointer, showPath } from '../json/path.js';
import type { ApplicationStatus } from '../model/application.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import type { ObjectRef } from '../model/resource.js';
import type { Action, FieldChange, JsonPatchOperation, Plan } from '../model/plan.js';
import { marksFrom, startsWith, updateValueAt } from '../sensitive/marked.js';
import {
  maskedAt,
  SECRET_MARKS,
  SENSITIVE_FIELDS,
  showSensitive,
  withDigests,
  type Marked,
} from '../sensitive/secret-values.js';
import { hookSecretName, isTokenKey, withoutHookToken } from './secret.js';
import type { HookOwner } from './types.js';
import { defined } from '../json/defined.js';

export const REDACTED = '(redacted)';

/**
 * `plan` with hook tokens removed from its status, Secret values there replaced by digests, and
 * both masked in its explanations. Create bodies and patch operations keep them: they are what
 * puts the values into the cluster (print them through `redactForDisplay`).
 */
export const redactPlan = (plan: Plan, owner: HookOwner): Plan => {
  const marked = marksFrom(plan.status.mangledObserverSchema);
  return {
    ...plan,
    status: redactStatus(plan.status, owner),
    actions: plan.actions.map((action) => maskMarkedChanges(redactAction(action, owner), marksFor(action, marked))),
  };
};

/** The identification a schema is looked up by, for an action's object. */
const identified = (ref: ObjectRef): JsonObject => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  metadata: { name: ref.name },
});

const hidden = (value: JsonValue): JsonValue => showSensitive('', value);

/** The fields of `action`'s object shown masked: those its schema marks, and a Secret's last-applied annotation. */
const marksFor = (action: Action, marked: (object: JsonObject) => Marked): Marked => {
  const own = marked(identified(action.ref));
  return isSecretRef(action) ? [...own, ...SECRET_MARKS] : own;
};

/** A schema-marked field as a human path (`spec.ports[0].password`), as field changes name them. */
const humanPath = (tokens: ReadonlyArray<string>): string =>
  showPath(tokens.map((token) => (/^\d+$/.test(token) ? Number(token) : token)));

/** `value`, written at `path`, with what lies at or below the marked fields hidden. */
const maskMarkedValue = (path: string, value: JsonValue, marked: Marked): JsonValue =>
  marked.reduce<JsonValue>((current, tokens) => {
    const whole = humanPath(tokens);
    if (path === whole || path.startsWith(`${whole}.`) || path.startsWith(`${whole}[`)) return hidden(current);
    const depth = tokens.findIndex((_token, k) => humanPath(tokens.slice(0, k)) === path);
    return depth < 0 ? current : updateValueAt(current, tokens.slice(depth), hidden);
  }, value);

const maskMarkedChanges = (action: Action, marked: Marked): Action =>
  marked.length === 0 || action.changes.length === 0
    ? action
    : {
        ...action,
        changes: action.changes.map((change) => ({
          path: change.path,
          ...(change.from === undefined ? {} : { from: maskMarkedValue(change.path, change.from, marked) }),
          ...(change.to === undefined ? {} : { to: maskMarkedValue(change.path, change.to, marked) }),
        })),
      };

/**
 * An entry with hook tokens out, then digests in. Returned by a factory, not bound to a name in
 * `redactStatus`: tsx (the benchmarks) names such a closure with a property definition on every plan.
 */
const entryRedaction =
  (marked: (object: JsonObject) => Marked, owner: HookOwner) =>
  <T extends JsonObject>(entry: T): T => {
    const hookless = withoutHookToken(entry, owner);
    return withDigests(hookless, marked(hookless));
  };

/** A status without hook tokens and with Secret values as digests: what may be written to the Application. */
export const redactStatus = (status: ApplicationStatus, owner: HookOwner): ApplicationStatus => {
  // One pass per list, entry by entry (hook tokens out, then digests): most entries are kept as they are.
  const redactEntry = entryRedaction(marksFrom(status.mangledObserverSchema), owner);
  const applied =
    status.lastAppliedManifest === undefined ? undefined : mapKept(status.lastAppliedManifest, redactEntry);
  const observed =
    status.lastObservedManifest === undefined ? undefined : mapKept(status.lastObservedManifest, redactEntry);
  // Nothing to redact (most statuses, every resync of an in-sync Application): the status itself, no copy.
  if (applied === status.lastAppliedManifest && observed === status.lastObservedManifest) return status;
  return {
    ...status,
    ...defined({ lastAppliedManifest: applied, lastObservedManifest: observed }),
  };
};

/**
 * `entries.map(update)`, or `entries` itself when no entry changes: most statuses hold no
 * Secret, and an unchanged list keeps the identity the next plan's caches are keyed by.
 */
const mapKept = <T extends JsonObject>(entries: ReadonlyArray<T>, update: (entry: T) => T): ReadonlyArray<T> => {
  // An index loop: an `entries()` iterator allocates a pair per entry, on every status entry of every plan.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const next = update(entry);
    if (next !== entry) return [...entries.slice(0, i), next, ...entries.slice(i + 1).map(update)];
  }
  return entries;
};

const isSecretRef = (action: Action): boolean => action.ref.kind === 'Secret' && action.ref.apiVersion === 'v1';

const redactAction = (action: Action, owner: HookOwner): Action => {
  if (!isSecretRef(action) || action.changes.length === 0) return action;
  const hookSecret = action.ref.name === hookSecretName(owner);
  return {
    ...action,
    changes: action.changes.map((change) => (hookSecret ? redactTokenChange(change) : maskChange(change))),
  };
};

const redactTokenChange = (change: FieldChange): FieldChange => {
  const whole = isTokenKey(change.path);
  return {
    path: change.path,
    ...(change.from === undefined ? {} : { from: whole ? REDACTED : mask(change.from) }),
    ...(change.to === undefined ? {} : { to: whole ? REDACTED : mask(change.to) }),
  };
};

/** A value written at a parent of the token keys (e.g. the whole `data`): token values masked. */
const mask = (value: JsonValue): JsonValue =>
  isJsonObject(value)
    ? objectFromEntries(
        Object.entries(value).map(([key, child]) => [key, isTokenKey(key) ? REDACTED : mask(child)] as const),
      )
    : value;

/** The leading segments of a human path (`data["a.b"]` → [data, a.b]; `data.KEY` → [data, KEY]). */
const segmentsOf = (path: string): ReadonlyArray<string> => {
  const match = /^([A-Za-z]+)(?:\.([^.[]+)|\[("(?:[^"\\]|\\.)*")\])?/.exec(path);
  if (match === null) return [path];
  const [, field = path, dotted, quoted] = match;
  const parsed: unknown = quoted === undefined ? undefined : JSON.parse(quoted);
  const key = dotted ?? (typeof parsed === 'string' ? parsed : undefined);
  return key === undefined ? [field] : [field, key];
};

const maskChange = (change: FieldChange): FieldChange => {
  const segments = segmentsOf(change.path);
  if (!SENSITIVE_FIELDS.includes(segments[0] ?? '')) return change;
  return {
    path: change.path,
    ...(change.from === undefined ? {} : { from: maskedAt(segments, change.from) }),
    ...(change.to === undefined ? {} : { to: maskedAt(segments, change.to) }),
  };
};

const maskOperation = (operation: JsonPatchOperation): JsonPatchOperation => {
  if (operation.op === 'remove') return operation;
  const segments = fromPointer(operation.path);
  return SENSITIVE_FIELDS.includes(segments[0] ?? '')
    ? { ...operation, value: maskedAt(segments, operation.value) }
    : operation;
};

/** A patch operation with the values at or below the marked fields hidden. */
const maskMarkedOperation = (operation: JsonPatchOperation, marked: Marked): JsonPatchOperation => {
  if (operation.op === 'remove') return operation;
  const tokens = fromPointer(operation.path);
  const value = marked.reduce<JsonValue>((current, mark) => {
    if (startsWith(tokens, mark)) return hidden(current);
    return startsWith(mark, tokens) ? updateValueAt(current, mark.slice(tokens.length), hidden) : current;
  }, operation.value);
  return value === operation.value ? operation : { ...operation, value };
};

/**
 * `action` as it may be printed: Secret values, and values its schema (among `schemas`, the
 * plan's `mangledObserverSchema`) marks sensitive, in a create body or patch shown as
 * `(sensitive value) sha256:<hex>` (never to be executed: the values are gone).
 */
export const redactForDisplay = (action: Action, schemas?: ReadonlyArray<ObserverSchema>): Action =>
  displayRedactor(schemas)(action);

/**
 * `redactForDisplay` for every action of one plan: the marks of `schemas` are looked up once, not
 * once per action (an Application of 100 000 resources would otherwise scan its schemas 100 000 times).
 */
export const displayRedactor = (schemas?: ReadonlyArray<ObserverSchema>): ((action: Action) => Action) => {
  const marked = marksFrom(schemas);
  return (action) => redactMarked(action, marksFor(action, marked));
};

const redactMarked = (action: Action, marked: Marked): Action => {
  const secret = isSecretRef(action);
  if (action.type === 'create' || action.type === 'recreate') {
    const body = marked.reduce<JsonValue>(
      (current, tokens) => updateValueAt(current, tokens, hidden),
      secret ? maskedAt([], action.body) : action.body,
    );
    // Masking replaces values at marked paths, never the identification: the body keeps its type.
    return { ...action, body: body as typeof action.body };
  }
  if (action.type === 'patch')
    return {
      ...action,
      patch: action.patch.map((operation) =>
        maskMarkedOperation(secret ? maskOperation(operation) : operation, marked),
      ),
    };
  return action;
};
