/**
 * `kreconcile fleet-plan`: every Application of a snapshot or of the live cluster planned against a
 * change in one run (new Application files in place of the recorded ones; without -f, the fleet as
 * recorded, i.e. what this version's operator would do to it), with the report over the fleet:
 * totals, the instances grouped by identical change, conflicts between Applications, the guard.
 * Exit codes as `plan`'s (docs/cli.md).
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  conditionOf,
  type GuardVerdict,
  type Resource,
} from '../../../core/internal.js';
import { clusterFailure, usageError, type CliError } from '../cli-error.js';
import { reportErrors, type CliCommand, type CommandContext } from '../command.js';
import {
  EXIT_CHANGES,
  EXIT_ERROR,
  EXIT_GUARD_DENIED,
  EXIT_OK,
  PLAN_EXIT_CODES_HELP,
  type ExitCode,
} from '../exit-codes.js';
import { anyDenied, guardReport, plannedVerdicts, planApproveHint } from '../guard/check.js';
import type { ApplicationInput } from '../input/applications.js';
import { loadEntries } from '../input/load.js';
import { readValidManifestInputs } from '../input/manifest-inputs.js';
import { liveEntries, readSnapshot, type Snapshot } from '../input/snapshot.js';
import type { ClusterTarget, CliIo } from '../io.js';
import { collectLive } from '../live/collect.js';
import { clusterName } from '../planning/cluster-view.js';
import { planFleetView, type FleetPlanned } from '../planning/fleet.js';
import type { Planned } from '../planning/plan-applications.js';
import {
  fleetPlanDocument,
  renderFleetMarkdown,
  renderFleetText,
  type FleetPlanDocumentV1,
  type FleetView,
} from '../render/fleet.js';
import { applicationPlanV1, type ClusterBasis } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import { styleFor } from '../style.js';
import { basisLine, shownBasis, stalledSummary } from './plan.js';
import {
  decodeSharedFlags,
  readAdminInputs,
  sharedPlanOptions,
  type AdminInputs,
  type SharedPlanFlags,
} from './plan-options.js';
import { defined } from '../../../core/json/defined.js';

type Options = SharedPlanFlags & { readonly all?: boolean };

const EXAMPLES = `
Examples:
  # Record the fleet (every Application and its children), then plan a template bump for all of it
  kubectl get applications,deploy,svc,cm,secret -A -o yaml > fleet.yaml
  kreconcile fleet-plan --snapshot fleet.yaml -f rendered/ -o markdown > fleet-plan.md

  # What this kreconcile version (its defaults and schemas) would do to the recorded fleet as it is
  kreconcile fleet-plan --snapshot fleet.yaml --exit-code

  # Against the live cluster (read-only): every Application in it, -f ones in place of theirs
  kreconcile fleet-plan -f web.yaml --context prod --guard guard.yaml

  # Every instance's plan, not only one example per group of identical changes
  kreconcile fleet-plan --snapshot fleet.yaml -f rendered/ --all -o json

${PLAN_EXIT_CODES_HELP}
`;

/** The fleet as read: its objects and Applications, what they are, how plans name where they come from. */
type RecordedFleet = { readonly snapshot: Snapshot; readonly basis: ClusterBasis; readonly source: string };

/** The fleet's view: a snapshot, or every Application of the live cluster with the objects they concern. */
const fleetView = async (
  io: CliIo,
  options: Options,
  target: ClusterTarget | undefined,
  changes: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
): Promise<E.Either<ReadonlyArray<CliError>, RecordedFleet>> => {
  if (target !== undefined) return liveFleet(io, target, changes, crds);
  if (options.snapshot.length === 0)
    return E.left([
      usageError(
        'name the fleet with --snapshot fleet.yaml, or a cluster with --kubeconfig/--context (see kreconcile fleet-plan --help)',
      ),
    ]);
  const loaded = await loadEntries(io, options.snapshot);
  if (loaded.errors.length > 0) return E.left(loaded.errors);
  const snapshot = readSnapshot(loaded.entries);
  const files = options.snapshot.map((s) => (s === '-' ? '<stdin>' : s));
  return E.isLeft(snapshot)
    ? snapshot
    : E.right({ snapshot: snapshot.right, basis: { type: 'Snapshot', files }, source: files.join(', ') });
};

const liveFleet = async (
  io: CliIo,
  target: ClusterTarget,
  changes: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
): Promise<E.Either<ReadonlyArray<CliError>, RecordedFleet>> => {
  const name = clusterName(target);
  try {
    const reader = await io.connect(target);
    const listed = await reader.list({ apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND })();
    if (E.isLeft(listed))
      return E.left([clusterFailure(`cannot list the Applications of the ${name}: ${listed.left.message}`)]);
    const recorded = readSnapshot(liveEntries(listed.right.items, name));
    if (E.isLeft(recorded)) return recorded;
    const applications = [...recorded.right.applications.values(), ...changes.map((c) => c.application)];
    const objects = await collectLive(reader, applications, crds);
    if (E.isLeft(objects)) return E.left([objects.left]);
    const snapshot = readSnapshot(liveEntries([...listed.right.items, ...objects.right], name));
    return E.isLeft(snapshot)
      ? snapshot
      : E.right({ snapshot: snapshot.right, basis: { type: 'Live', ...target }, source: name });
  } catch (error) {
    return E.left([
      clusterFailure(`cannot read the ${name}: ${error instanceof Error ? error.message : String(error)}`),
    ]);
  }
};

/** The change under review: the -f Applications (none: the recorded fleet as it is). */
const readChanges = async (
  io: CliIo,
  options: Options,
): Promise<
  E.Either<
    ReadonlyArray<CliError>,
    { changes: ReadonlyArray<ApplicationInput>; crds: ReadonlyArray<Resource>; problems: ReadonlyArray<CliError> }
  >
> => {
  if (options.filename.length === 0) return E.right({ changes: [], crds: [], problems: [] });
  const read = await readValidManifestInputs(io, {
    ...options,
    tosca: { fetch: false, fileRoots: [], allowHttp: false, allowHosts: [] },
  });
  if (E.isLeft(read)) return read;
  return E.right({
    changes: read.right.inputs.applications,
    crds: read.right.inputs.crds,
    problems: read.right.problems,
  });
};

/** Stalled Applications other than by conflicts (exit 1, as `plan`), one line each. */
const stalledLines = (planned: ReadonlyArray<Planned>): string | undefined => {
  const stalled = planned.filter(
    (p) => conditionOf(p.plan.status.conditions, 'Stalled')?.status === 'True' || (p.plan.summary.forbidden ?? 0) > 0,
  );
  return stalled.length === 0 ? undefined : stalledSummary({ applications: stalled.map(applicationPlanV1) });
};

/** What was read and planned, for the report. */
type FleetRun = {
  readonly now: string;
  readonly admin: AdminInputs;
  readonly basis: ClusterBasis;
  readonly fleet: FleetPlanned;
  readonly problems: ReadonlyArray<CliError>;
};

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  const fail = (errors: ReadonlyArray<CliError>): void => {
    reportErrors(io, errors);
    context.exit(EXIT_ERROR);
  };
  const request = decodeSharedFlags(options, io.env, io.now);
  if (E.isLeft(request)) return fail(request.left);
  const read = await readChanges(io, options);
  if (E.isLeft(read)) return fail(read.left);
  const admin = await readAdminInputs(io, options);
  if (E.isLeft(admin)) return fail(admin.left);
  const { changes, crds } = read.right;
  const view = await fleetView(io, options, request.right.target, changes, crds);
  if (E.isLeft(view)) return fail(view.left);
  const { tenancy, fieldManagers, trusted } = admin.right;
  const fleet = planFleetView({
    snapshot: view.right.snapshot,
    changes,
    crds,
    source: view.right.source,
    now: request.right.now,
    trusted,
    ...defined({ tenancy, fieldManagers }),
  });
  return reportFleet(context, options, {
    now: request.right.now,
    admin: admin.right,
    basis: shownBasis(view.right.basis, options, io.env),
    fleet,
    problems: [...read.right.problems, ...fleet.problems],
  });
};

/** Prints the report and its problems, warns of conflicts; then `plan`'s exit code. */
const reportFleet = (context: CommandContext, options: Options, run: FleetRun): void => {
  const { io } = context;
  const { fleet, admin, problems } = run;
  const verdicts = admin.guard === undefined ? [] : plannedVerdicts(admin.guard.policy, fleet.planned, admin.approvals);
  const shown: FleetView = { planned: fleet.planned, report: fleet.report, verdicts, all: options.all === true };
  const header = `${basisLine(run.basis)
    .trimEnd()
    .replace(
      /^Planned/,
      `Fleet plan of ${fleet.planned.length} Application(s), ${fleet.changed} from -f, planned`,
    )}\n\n`;
  const document = fleetPlanDocument(shown, { now: run.now, cluster: run.basis });
  io.stdout.write(
    options.output === 'text'
      ? renderFleetText(shown, styleFor(io), header)
      : options.output === 'markdown'
        ? renderFleetMarkdown(shown, header)
        : serialize(document, options.output),
  );
  reportErrors(io, problems);
  for (const line of guardReport(verdicts, planApproveHint)) io.stderr.write(`${line}\n`);
  if (fleet.report.conflicts.length > 0)
    io.stderr.write(
      `warning: ${fleet.report.conflicts.length} object(s) declared by more than one Application: see "Conflicts between Applications"\n`,
    );
  context.exit(problems.length > 0 ? EXIT_ERROR : fleetExitCode(io, fleet, verdicts, options, document));
};

const fleetExitCode = (
  io: CliIo,
  fleet: FleetPlanned,
  verdicts: ReadonlyArray<GuardVerdict>,
  options: Options,
  document: FleetPlanDocumentV1,
): ExitCode => {
  const stuck = stalledLines(fleet.planned);
  if (stuck !== undefined) {
    io.stderr.write(`${stuck}\n`);
    return EXIT_ERROR;
  }
  if (anyDenied(verdicts)) return EXIT_GUARD_DENIED;
  return options.exitCode === true && document.summary.changes ? EXIT_CHANGES : EXIT_OK;
};

export const fleetPlanCommand: CliCommand = {
  name: 'fleet-plan',
  create: (context) =>
    [
      ...sharedPlanOptions({
        filename: 'the changed Application file(s): they replace the recorded Applications of the same namespace/name',
        snapshot: 'the fleet: Applications and live objects (kubectl get -A -o yaml, kreconcile snapshot)',
        exitCode:
          'exit 2 when some instance would change or two Applications declare one object, 0 when not, 1 on errors',
        guard: 'guard policy evaluated over every plan of the fleet together: exit 3 when it denies one',
        offline: 'never read the cluster of KUBECONFIG (a --snapshot is then required)',
      }),
      new Option('--all', "print every instance's plan, not only one example per group"),
    ]
      .reduce(
        (command, option) => command.addOption(option),
        new Command('fleet-plan')
          .summary('plan every Application of a snapshot or cluster against a change (blast radius, conflicts)')
          .description(
            'Plans every Application recorded in --snapshot (or every Application of the live cluster, read-only), each -f Application in place of the recorded one of the same namespace/name, and reports over the fleet: totals per action, kind and fields, the instances grouped by identical change with one example each, objects two Applications declare (and who wins on the server), field fights with known controllers, the guard policy over every plan. Nothing is written.',
          ),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
