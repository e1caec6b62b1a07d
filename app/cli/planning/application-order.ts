/**
 * `spec.dependsOn` in the CLI: a directory's Applications in dependency order (each after the
 * Applications of the directory it depends on, otherwise in input order), the view of the other
 * Applications each plan is given (the directory's, over the snapshot's), and `validate`'s checks.
 */
import {
  applicationKeyText,
  applicationsViewOf,
  dependenciesOf,
  dependsOnDecision,
  type Application,
  type ApplicationsView,
  type TenancyPolicy,
} from '../../../core/internal.js';
import type { CliError } from '../cli-error.js';
import { applicationName, subjectOf, type ApplicationInput } from '../input/applications.js';
import { errorAt } from '../input/entries.js';

const keyOf = (application: Application): string => applicationName(application);

const dependencyKeys = (application: Application): ReadonlyArray<string> =>
  dependenciesOf(application.metadata.namespace ?? 'default', application.spec.dependsOn).map(applicationKeyText);

/**
 * `items` ordered so that each comes after every item it depends on (through `applicationOf`),
 * the input order kept otherwise; the members of a cycle, and what depends on them, come last in
 * input order (their plans say why they stall or wait).
 */
export const inDependencyOrder = <T>(
  items: ReadonlyArray<T>,
  applicationOf: (item: T) => Application,
): ReadonlyArray<T> => {
  const keys = new Set(items.map((item) => keyOf(applicationOf(item))));
  const placed = new Set<string>();
  const ordered: T[] = [];
  let remaining = [...items];
  for (let progress = true; progress && remaining.length > 0;) {
    progress = false;
    const next: T[] = [];
    for (const item of remaining) {
      const application = applicationOf(item);
      const waitsFor = dependencyKeys(application).filter((key) => keys.has(key) && !placed.has(key));
      if (waitsFor.length === 0) {
        ordered.push(item);
        placed.add(keyOf(application));
        progress = true;
      } else next.push(item);
    }
    remaining = next;
  }
  return [...ordered, ...remaining];
};

/** The Applications a plan sees: the snapshot's, replaced by the directory's (as planned, cluster state merged). */
export const directoryView = (recorded: Iterable<Application>, planned: ReadonlyArray<Application>): ApplicationsView =>
  applicationsViewOf([...recorded, ...planned]);

/**
 * `validate`'s checks of `spec.dependsOn` across the inputs: a cycle (or a self-dependency) is an
 * error for each member, and so is, with the admin's tenancy `policy`, a dependency it forbids
 * (without one every namespace is followed: the operator's policy is not known); a name no input
 * declares is a warning (it may live in the cluster).
 */
export const dependsOnProblems = (
  inputs: ReadonlyArray<ApplicationInput>,
  policy?: TenancyPolicy,
): { readonly errors: ReadonlyArray<CliError>; readonly warnings: ReadonlyArray<CliError> } => {
  const view = applicationsViewOf(inputs.map((input) => input.application));
  const known = new Set(inputs.map((input) => keyOf(input.application)));
  const errors = inputs.flatMap((input) => {
    const decision = dependsOnDecision({
      application: withoutDeletion(input.application),
      view,
      policy: policy ?? EVERY_NAMESPACE,
    });
    return decision._tag === 'Stalled'
      ? [
          errorAt(
            input.origin,
            ['spec', 'dependsOn'],
            decision.message.replace(/^spec\.dependsOn: /, ''),
            subjectOf(input.application),
          ),
        ]
      : [];
  });
  const warnings = inputs.flatMap((input) =>
    (input.application.spec.dependsOn ?? []).flatMap((entry, index) => {
      const key = `${entry.namespace ?? input.application.metadata.namespace ?? 'default'}/${entry.name}`;
      return known.has(key)
        ? []
        : [
            errorAt(
              input.origin,
              ['spec', 'dependsOn', index],
              `Application ${key} is not among the inputs: it must exist in the cluster and be Ready, or this Application waits (DependencyNotReady)`,
              subjectOf(input.application),
            ),
          ];
    }),
  );
  return { errors, warnings };
};

const EVERY_NAMESPACE: TenancyPolicy = { destinations: [{ from: '*', to: ['*'] }] };

/** Checked as it will be applied: a recorded deletion does not turn the check into a dependants one. */
const withoutDeletion = (application: Application): Application => {
  if (application.metadata.deletionTimestamp === undefined) return application;
  const { deletionTimestamp: _gone, ...metadata } = application.metadata;
  return { ...application, metadata };
};
