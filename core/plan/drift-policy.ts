/**
 * `spec.driftPolicy: Report` (issue 22): drift (an observed field another actor changed on a
 * child whose desired state did not change since it was last applied) is not patched back but
 * reported in `status.drift`, with the live and desired values masked as plans mask them.
 * Creating missing children, pruning and applying spec changes go on as under `Correct`.
 */
import { jsonEqual } from '../json/json.js';
import type { Application, DriftEntry } from '../model/application.js';
import type { Resource } from '../model/resource.js';
import { identityIndex } from '../manifest/identity.js';
import { redactPlan, redactStatus } from '../hooks/redact.js';
import type { ObserverSchema } from '../model/observer-schema.js';
import type { Owner } from '../manifest/ownership.js';
import type { PatchAction, Plan, RecreateAction } from '../model/plan.js';
import { defined } from '../json/defined.js';

type Corrections = {
  readonly patches: ReadonlyArray<PatchAction>;
  readonly recreates?: ReadonlyArray<RecreateAction>;
};

/**
 * Under `Report`, the patches and recreations that only correct drift are withheld: those of a
 * resource whose desired state (`current`) equals what the status recorded as applied (`previous`,
 * where Secret values are digests: `current` is compared in the same form).
 */
export const withheldDrift = <D extends Corrections>(
  decided: D,
  application: Application,
  previous: ReadonlyArray<Resource> | undefined,
  current: ReadonlyArray<Resource>,
  mangled: ReadonlyArray<ObserverSchema>,
  owner: Owner,
): { readonly decided: D; readonly withheld: ReadonlyArray<PatchAction | RecreateAction> } => {
  if (application.spec?.driftPolicy !== 'Report' || previous === undefined) return { decided, withheld: [] };
  const before = identityIndex(previous);
  // Compared as the status stores it: Secret values (and marked fields) as digests, hook tokens out.
  const now = identityIndex(
    redactStatus({ lastAppliedManifest: current, mangledObserverSchema: mangled }, owner).lastAppliedManifest ?? [],
  );
  const isDrift = (action: PatchAction | RecreateAction): boolean => {
    const was = before.get(action.ref);
    const is = now.get(action.ref);
    return was !== undefined && is !== undefined && jsonEqual(was, is);
  };
  const withheld = [...decided.patches, ...(decided.recreates ?? [])].filter(isDrift);
  if (withheld.length === 0) return { decided, withheld };
  return {
    decided: {
      ...decided,
      patches: decided.patches.filter((action) => !isDrift(action)),
      ...(decided.recreates === undefined ? {} : { recreates: decided.recreates.filter((action) => !isDrift(action)) }),
    },
    withheld,
  };
};

/** The drift entries of withheld corrections, values masked by the planner's own redaction. */
const entriesOf = (
  withheld: ReadonlyArray<PatchAction | RecreateAction>,
  planned: Plan,
  owner: Owner,
): ReadonlyArray<DriftEntry> =>
  redactPlan({ ...planned, actions: withheld }, owner).actions.flatMap((action) =>
    action.changes.map((change) => ({
      resource: {
        apiVersion: action.ref.apiVersion,
        kind: action.ref.kind,
        name: action.ref.name,
        ...defined({ namespace: action.ref.namespace }),
      },
      path: change.path,
      ...defined({ live: change.from, desired: change.to }),
    })),
  );

/**
 * `planned` with `status.drift` set to the withheld corrections (removed when there are none), and
 * a Ready message that says drift is left in place.
 */
export const withDriftReport = (
  planned: Plan,
  withheld: ReadonlyArray<PatchAction | RecreateAction>,
  owner: Owner,
): Plan => {
  const { drift: _previous, ...rest } = planned.status;
  if (withheld.length === 0) return _previous === undefined ? planned : { ...planned, status: rest };
  const drift = entriesOf(withheld, planned, owner);
  const conditions = planned.status.conditions?.map((condition) =>
    condition.type === 'Ready' && condition.status === 'True'
      ? {
          ...condition,
          message: `${condition.message}; drift left in place (driftPolicy Report): ${drift.length} field(s), see status.drift`,
        }
      : condition,
  );
  return { ...planned, status: { ...rest, drift, ...defined({ conditions }) } };
};
