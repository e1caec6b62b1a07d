/**
 * Keeping hook tokens out of everything but the API requests that write them: a plan's status
 * (persisted on the Application) and its field-level explanations (printed, turned into Events).
 */
import { isJsonObject, objectFromEntries, type JsonValue } from '../json/json.js';
import type { ApplicationStatus } from '../model/application.js';
import type { Action, FieldChange, Plan } from '../plan/types.js';
import { hookSecretName, isTokenKey, withoutHookTokens } from './secret.js';
import type { HookOwner } from './types.js';

export const REDACTED = '(redacted)';

/**
 * `plan` with hook tokens removed from its status and masked in its explanations. Create bodies
 * and patch operations keep them: they are what puts the token into the Secret.
 */
export const redactHookTokens = (plan: Plan, owner: HookOwner): Plan => ({
  ...plan,
  status: redactStatus(plan.status, owner),
  actions: plan.actions.map((action) => redactAction(action, owner)),
});

/** A status without hook tokens: what may be written to the Application. */
export const redactStatus = (status: ApplicationStatus, owner: HookOwner): ApplicationStatus => ({
  ...status,
  ...(status.lastAppliedManifest === undefined ? {} : { lastAppliedManifest: withoutHookTokens(status.lastAppliedManifest, owner) }),
  ...(status.lastObservedManifest === undefined ? {} : { lastObservedManifest: withoutHookTokens(status.lastObservedManifest, owner) }),
});

const redactAction = (action: Action, owner: HookOwner): Action => {
  if (action.type !== 'patch' || action.ref.kind !== 'Secret' || action.ref.apiVersion !== 'v1' || action.ref.name !== hookSecretName(owner)) return action;
  return { ...action, changes: action.changes.map(redactChange) };
};

const redactChange = (change: FieldChange): FieldChange => {
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
