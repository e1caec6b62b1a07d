/**
 * Keeping credentials out of everything but the API requests that write them: hook tokens and
 * Secret values never reach a plan's status (persisted on the Application) or its field-level
 * explanations (printed, logged, turned into Events); `redactForDisplay` also masks them in the
 * create bodies and patches a printed plan shows. The one redaction mechanism of the project.
 */
import { isJsonObject, objectFromEntries, type JsonValue } from '../json/json.js';
import { fromPointer } from '../json/path.js';
import type { ApplicationStatus } from '../model/application.js';
import type { Action, FieldChange, JsonPatchOperation, Plan } from '../plan/types.js';
import { maskedAt, SENSITIVE_FIELDS, withDigests } from '../sensitive/secret-values.js';
import { hookSecretName, isTokenKey, withoutHookTokens } from './secret.js';
import type { HookOwner } from './types.js';

export const REDACTED = '(redacted)';

/**
 * `plan` with hook tokens removed from its status, Secret values there replaced by digests, and
 * both masked in its explanations. Create bodies and patch operations keep them: they are what
 * puts the values into the cluster (print them through `redactForDisplay`).
 */
export const redactPlan = (plan: Plan, owner: HookOwner): Plan => ({
  ...plan,
  status: redactStatus(plan.status, owner),
  actions: plan.actions.map((action) => redactAction(action, owner)),
});

/** A status without hook tokens and with Secret values as digests: what may be written to the Application. */
export const redactStatus = (status: ApplicationStatus, owner: HookOwner): ApplicationStatus => ({
  ...status,
  ...(status.lastAppliedManifest === undefined ? {} : { lastAppliedManifest: withoutHookTokens(status.lastAppliedManifest, owner).map(withDigests) }),
  ...(status.lastObservedManifest === undefined ? {} : { lastObservedManifest: withoutHookTokens(status.lastObservedManifest, owner).map(withDigests) }),
});

const isSecretRef = (action: Action): boolean => action.ref.kind === 'Secret' && action.ref.apiVersion === 'v1';

const redactAction = (action: Action, owner: HookOwner): Action => {
  if (!isSecretRef(action) || action.changes.length === 0) return action;
  const hookSecret = action.ref.name === hookSecretName(owner);
  return { ...action, changes: action.changes.map((change) => (hookSecret ? redactTokenChange(change) : maskChange(change))) } as Action;
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
const mask = (value: JsonValue): JsonValue => (isJsonObject(value)
  ? objectFromEntries(Object.entries(value).map(([key, child]) => [key, isTokenKey(key) ? REDACTED : mask(child)] as const))
  : value);

/** The leading segments of a human path (`data["a.b"]` → [data, a.b]; `data.KEY` → [data, KEY]). */
const segmentsOf = (path: string): ReadonlyArray<string> => {
  const match = /^([A-Za-z]+)(?:\.([^.[]+)|\[("(?:[^"\\]|\\.)*")\])?/.exec(path);
  if (match === null) return [path];
  const key = match[2] ?? (match[3] === undefined ? undefined : JSON.parse(match[3]) as string);
  return key === undefined ? [match[1] as string] : [match[1] as string, key];
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
  return SENSITIVE_FIELDS.includes(segments[0] ?? '') ? { ...operation, value: maskedAt(segments, operation.value) } : operation;
};

/**
 * `action` as it may be printed: Secret values in a create body or patch shown as
 * `(sensitive value) sha256:<hex>` (never to be executed: the values are gone).
 */
export const redactForDisplay = (action: Action): Action => {
  if (!isSecretRef(action)) return action;
  if (action.type === 'create') return { ...action, body: maskedAt([], action.body) as typeof action.body };
  if (action.type === 'patch') return { ...action, patch: action.patch.map(maskOperation) };
  return action;
};
