/**
 * The fleet `kreconcile fleet-plan` plans: every Application recorded in the view (a snapshot, or
 * the live cluster's Applications), each replaced by the `-f` Application of the same
 * namespace/name (the change under review), plus the `-f` Applications the view does not hold yet.
 * Each is planned exactly as `kreconcile plan` plans it alone (planEachApplication), then the
 * core's fleet report is made over the plans (core/fleet/fleet-report.ts).
 */
import {
  fleetReport,
  type FleetReport,
  type KnownManager,
  type Resource,
  type TenancyPolicy,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { applicationName, desiredManifest, type ApplicationInput } from '../input/applications.js';
import type { Origin } from '../input/entries.js';
import type { Snapshot } from '../input/snapshot.js';
import { desiredRefs } from './live-objects.js';
import { planEachApplication, type Planned } from './plan-applications.js';
import { scopesFor } from '../input/scopes.js';

export type FleetPlanned = {
  readonly planned: ReadonlyArray<Planned>;
  readonly report: FleetReport;
  readonly problems: ReadonlyArray<CliError>;
  /** How many of the planned Applications came from `-f` (the change) rather than the view as recorded. */
  readonly changed: number;
};

/** Where a recorded Application comes from, as plans and errors name it. */
const recordedOrigin = (source: string): Origin => ({
  file: `as recorded in ${source}`,
  document: 0,
  prefix: [],
  locate: () => ({ file: source }),
});

/** The view's Applications with the `-f` ones in their place, then the new ones, in view order. */
export const fleetInputs = (
  snapshot: Snapshot,
  changes: ReadonlyArray<ApplicationInput>,
  source: string,
): ReadonlyArray<ApplicationInput> => {
  const byName = new Map(changes.map((input) => [applicationName(input.application), input]));
  const recorded = [...snapshot.applications.entries()].map(
    ([name, application]) => byName.get(name) ?? { application, origin: recordedOrigin(source) },
  );
  const fresh = changes.filter((input) => !snapshot.applications.has(applicationName(input.application)));
  return [...recorded, ...fresh];
};

export const planFleetView = (args: {
  readonly snapshot: Snapshot;
  readonly changes: ReadonlyArray<ApplicationInput>;
  readonly crds: ReadonlyArray<Resource>;
  readonly source: string;
  readonly now: string;
  readonly tenancy?: TenancyPolicy;
  /** `--field-managers` added to the known ones (docs/field-owners.md): fields left to them are reported per plan. */
  readonly fieldManagers?: ReadonlyArray<KnownManager>;
  readonly trusted?: ReadonlyArray<Resource>;
}): FleetPlanned => {
  const applications = fleetInputs(args.snapshot, args.changes, args.source);
  const each = planEachApplication({ ...args, applications });
  const scopes = scopesFor(args.crds, args.snapshot.objects, args.trusted);
  const report = fleetReport({
    instances: each.planned.map((p) => ({
      application: p.application,
      plan: p.plan,
      declares: desiredRefs(p.application, scopes, desiredManifest(p.input)),
    })),
    live: args.snapshot.objects,
  });
  const changedNames = new Set(args.changes.map((c) => applicationName(c.application)));
  return {
    planned: each.planned,
    report,
    problems: each.problems,
    changed: each.planned.filter((p) => changedNames.has(applicationName(p.application))).length,
  };
};
