/**
 * `kreconcile plan`: what the operator would do for the given Applications, computed offline by
 * the pure core against a snapshot, the live cluster (read-only) or an empty cluster.
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { clusterFailure, usageError, type CliError } from '../cli-error.js';
import { asApplicationOption, reportErrors, collect, type CliCommand, type CommandContext } from '../command.js';
import {
  EXIT_CHANGES,
  EXIT_ERROR,
  EXIT_GUARD_DENIED,
  EXIT_NOT_CONVERGING,
  EXIT_OK,
  PLAN_EXIT_CODES_HELP,
  type ExitCode,
} from '../exit-codes.js';
import { anyDenied, guardReport, ignoredApprovals, plannedVerdicts, planApproveHint } from '../guard/check.js';
import { guardSchemaErrors } from '../guard/read-guard.js';
import { applicationName, placedErrors, withDesiredManifest } from '../input/applications.js';
import { readValidManifestInputs, type PartialInputs } from '../input/manifest-inputs.js';
import type { PlainManifests } from '../input/plain-manifests.js';
import { catalogFor, manifestRefusalErrors } from '../input/schema-catalog.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaAccess,
  type ToscaFlags,
} from '../input/tosca.js';
import { clusterView, type ClusterView, type ViewRequest } from '../planning/cluster-view.js';
import { planEachApplication, type Planned } from '../planning/plan-applications.js';
import { diverges, renderDryRun, serverDryRun, type DryRun, type OfflineCheck } from '../planning/server-dry-run.js';
import { crdRules } from '../../../adapters/cel/crd-rules.js';
import { simulateAll } from '../planning/simulate.js';
import { converges, describeConvergence, verifyConvergence } from '../planning/verify-converges.js';
import { manifestLocator } from '../planning/manifest-locator.js';
import { renderSimulationDocument, renderSimulationText } from '../render/simulation.js';
import { renderMarkdown } from '../render/markdown.js';
import type { CliIo, ClusterTarget } from '../io.js';
import { scopesFor } from '../input/scopes.js';
import { writeSavedPlan } from '../saved-plan/save.js';
import { planDocument, type ClusterBasis, type PlanDocumentV1 } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import { styleFor } from '../style.js';
import { renderText } from '../render/text.js';
import type { GuardVerdict, Resource, SchemaCatalog, ScopeTable, TenancyPolicy } from '../../../core/internal.js';
import {
  decodeSharedFlags,
  readAdminInputs,
  sharedPlanOptions,
  type AdminInputs,
  type SharedPlanFlags,
  type SharedPlanRequest,
} from './plan-options.js';
import { defined } from '../../../core/json/defined.js';

type Options = SharedPlanFlags &
  ToscaFlags & {
    readonly asApplication?: string;
    readonly out?: string;
    readonly allowSecretValues?: boolean;
    readonly verifyConverges?: boolean;
    readonly serverDryRun?: boolean;
    readonly simulate?: boolean;
    readonly simulateUnready: ReadonlyArray<string>;
  };

const EXAMPLES = `
Examples:
  # What would the operator create in an empty cluster?
  kreconcile plan -f app.yaml

  # Plan against a recorded snapshot (any kubectl get -o yaml output, or kreconcile snapshot)
  kubectl get deploy,svc,cm,ingress,applications -n shop -o yaml > live.yaml
  kreconcile plan -f app.yaml --snapshot live.yaml

  # In CI: fail the job on errors, flag drift with exit code 2, reproducible output
  kreconcile plan -f app.yaml --snapshot live.yaml --exit-code --now 2026-01-31T12:00:00Z

  # Machine-readable plan (format kreconcile.io/plan/v1, see docs/plan-output.md)
  kreconcile plan -f app.yaml -o json | jq '.summary'

  # Against the live cluster (read-only: only get and list)
  kreconcile plan -f app.yaml --context staging

  # With the tenancy policy the operator runs with (children elsewhere show as "! ... forbidden")
  kreconcile plan -f app.yaml --policy policy.yaml
  # Save the plan, review it, then carry out exactly it (refused if the cluster moved meanwhile)
  kreconcile plan -f app.yaml --context staging --out plan.json
  kreconcile show plan.json && kreconcile apply plan.json --context staging

  # Before deploying: carry the plan out on the in-memory API server and plan again until nothing is left
  # (exit 4 with each round's object, field and values when it never converges)
  kreconcile plan -f app.yaml --verify-converges

  # A directory: every valid Application's plan, every problem of the others (exit 1 if any)
  kreconcile plan -f apps/

  # In CI: refuse plans the guard policy denies (exit 3; the operator's run --guard refuses the same)
  kreconcile plan -f app.yaml --context prod --guard guard.yaml

  # Custom kinds: give their CustomResourceDefinitions with -f
  cat app.yaml | kreconcile plan -f - -f crds.yaml

  # TOSCA: inline templates are translated; templates and CSARs by URL only when allowed
  kreconcile plan -f examples/tosca/app-url.yaml --allow-tosca-fetch

${PLAN_EXIT_CODES_HELP}
`;

/** Conflicts stall too, but they are changes to review (adopt or rename): `--exit-code` gives 2 for them. */
const CONFLICTS = new Set(['NotOwned', 'OwnedByAnother']);

/**
 * The stalled Applications of a plan (forbidden children, an invalid spec, a dependency cycle…),
 * one line each: a plan the operator would not carry out fails the gate (exit 1), whatever
 * `--exit-code`. Conflicts keep their exit code (2 with `--exit-code`).
 */
export const stalledSummary = (document: Pick<PlanDocumentV1, 'applications'>): string | undefined => {
  const stalled = document.applications.filter(
    (application) =>
      (application.result === 'Stalled' && !CONFLICTS.has(application.stalled?.reason ?? '')) ||
      (application.summary.forbidden ?? 0) > 0,
  );
  if (stalled.length === 0) return undefined;
  const lines = stalled.map(
    ({ application, stalled: why, summary }) =>
      `error: Application ${application.namespace ?? 'default'}/${application.name} is Stalled (${why?.reason ?? 'unknown'})${summary.forbidden === undefined || summary.forbidden === 0 ? '' : `, ${summary.forbidden} forbidden`}: ${why?.message ?? ''}`,
  );
  return [
    ...lines,
    `error: ${stalled.length} of ${document.applications.length} Application(s) stalled: the operator would not carry their plans out; fix them, then plan again`,
  ].join('\n');
};

/** Where to plan (shared with fleet-plan: plan-options.ts). */
export { targetOf } from './plan-options.js';

/** The basis as the plan header names it: a cluster reached through KUBECONFIG says so. */
export const shownBasis = (
  basis: ClusterBasis,
  options: Pick<Options, 'context'>,
  env: Readonly<Record<string, string | undefined>>,
): ClusterBasis =>
  basis.type === 'Live' &&
  basis.kubeconfigPath === undefined &&
  options.context === undefined &&
  env.KUBECONFIG !== undefined
    ? { ...basis, kubeconfigPath: `KUBECONFIG=${env.KUBECONFIG}` }
    : basis;

/** The plan's first line: what it was planned against (issue 36: never silently an empty cluster). */
export const basisLine = (basis: ClusterBasis): string => {
  switch (basis.type) {
    case 'Empty':
      return 'Planned against an empty cluster (offline: no --snapshot, --kubeconfig, --context or KUBECONFIG).\n\n';
    case 'Snapshot':
      return `Planned against the snapshot ${basis.files.join(', ')}.\n\n`;
    case 'Live':
      return `Planned against the live cluster (read-only) of ${basis.kubeconfigPath === undefined ? 'the default kubeconfig' : basis.kubeconfigPath.startsWith('KUBECONFIG=') ? basis.kubeconfigPath : `--kubeconfig ${basis.kubeconfigPath}`}${basis.context === undefined ? '' : `, context ${basis.context}`}.\n\n`;
  }
};

const savedNote = (out: string | undefined): string =>
  out === undefined ? '' : `\nSaved the plan to ${out}: kreconcile apply ${out} carries out exactly these actions.\n`;

/** The flags decoded: what to read, where to plan and at what time, and what else to do. */
export type PlanRequest = SharedPlanRequest & {
  readonly flags: Options;
  readonly tosca: ToscaAccess;
  readonly plainManifests?: PlainManifests;
};

/** `plan`'s own flag rules (the shared ones are plan-options.ts's). */
const planUsageErrors = (options: Options): ReadonlyArray<CliError> => [
  ...(options.filename.length === 0
    ? [usageError('name the Applications to plan with -f app.yaml (see kreconcile plan --help)')]
    : []),
  ...(options.serverDryRun === true && options.kubeconfig === undefined && options.context === undefined
    ? [usageError('--server-dry-run sends the plan to a cluster: give it with --kubeconfig or --context')]
    : []),
];

/**
 * The flags as commander gives them, decoded (pure but for `clock`, read only without `--now`).
 * Errors: every flag problem, one line each.
 */
export const decodePlanOptions = (
  options: Options,
  env: Readonly<Record<string, string | undefined>>,
  clock: () => Date,
): E.Either<ReadonlyArray<CliError>, PlanRequest> => {
  const own = planUsageErrors(options);
  const shared = decodeSharedFlags(options, env, clock);
  if (own.length > 0 || E.isLeft(shared)) return E.left([...own, ...(E.isLeft(shared) ? shared.left : [])]);
  const tosca = toscaAccessOf(options);
  if (E.isLeft(tosca)) return E.left([usageError(tosca.left)]);
  return E.right({
    ...shared.right,
    flags: options,
    tosca: tosca.right,
    ...(options.asApplication === undefined
      ? {}
      : { plainManifests: { mode: 'application', name: options.asApplication } }),
  });
};

/** The `-f` inputs (the valid ones, and every problem of the others) and the admin's files. */
type PlanInputs = PartialInputs & { readonly admin: AdminInputs };

/** Errors: nothing valid to plan; an admin file that does not read; guard rules naming fields no schema has. */
const readPlanInputs = async (
  io: CliIo,
  request: PlanRequest,
): Promise<E.Either<ReadonlyArray<CliError>, PlanInputs>> => {
  const read = await readValidManifestInputs(io, {
    ...request.flags,
    tosca: request.tosca,
    ...defined({ plainManifests: request.plainManifests }),
  });
  if (E.isLeft(read)) return read;
  // One bad Application hides no other: the valid ones are planned, every problem is reported, exit 1.
  if (read.right.inputs.applications.length === 0) return E.left(read.right.problems);
  const admin = await readAdminInputs(io, request.flags);
  if (E.isLeft(admin)) return admin;
  const unguarded =
    admin.right.guard === undefined ? [] : guardSchemaErrors(admin.right.guard, catalogOf(io, read.right, admin.right));
  return unguarded.length > 0 ? E.left(unguarded) : E.right({ ...read.right, admin: admin.right });
};

/** The schemas guard rules and the server dry run check against: built-in kinds, --crd, CRDs among -f. */
const catalogOf = (io: CliIo, read: PartialInputs, admin: AdminInputs): SchemaCatalog =>
  catalogFor(io, { flagCrds: admin.flagCrds, inputCrds: read.inputs.crds, applications: read.inputs.applications });

/** Every valid Application planned against the view, and every problem (input, refusals, stalled on input). */
type Planning = {
  readonly view: ClusterView;
  readonly planned: ReadonlyArray<Planned>;
  readonly problems: ReadonlyArray<CliError>;
  readonly scopes: ScopeTable;
};

const planInView = async (
  io: CliIo,
  request: PlanRequest,
  inputs: PlanInputs,
): Promise<E.Either<ReadonlyArray<CliError>, Planning>> => {
  const { inputs: valid, admin } = inputs;
  const viewRequest: ViewRequest = {
    snapshots: request.flags.snapshot,
    ...defined({ target: request.target, tenancy: admin.tenancy }),
  };
  const viewed = await clusterView(io, viewRequest, valid.applications, valid.crds);
  if (E.isLeft(viewed)) return viewed;
  const view = { ...viewed.right, basis: shownBasis(viewed.right.basis, request.flags, io.env) };
  const each = planEachApplication({
    ...valid,
    snapshot: view.snapshot,
    now: request.now,
    ...defined({ tenancy: admin.tenancy, fieldManagers: admin.fieldManagers }),
    trusted: admin.trusted,
  });
  // What the API server would refuse on write (a quantity, a schedule, a removed apiVersion): the operator would stall.
  const refusals = placedErrors(manifestRefusalErrors(valid.applications), valid.applications);
  const problems = [...inputs.problems, ...refusals, ...placedErrors(each.problems, valid.applications)];
  if (each.planned.length === 0) return E.left(problems);
  const scopes = scopesFor(valid.crds, view.snapshot.objects, admin.trusted);
  return E.right({ view, planned: each.planned, problems, scopes });
};

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  const fail = (errors: ReadonlyArray<CliError>): void => {
    reportErrors(io, errors);
    context.exit(EXIT_ERROR);
  };
  const request = decodePlanOptions(options, io.env, io.now);
  if (E.isLeft(request)) return fail(request.left);
  const inputs = await readPlanInputs(io, request.right);
  if (E.isLeft(inputs)) return fail(inputs.left);
  const planning = await planInView(io, request.right, inputs.right);
  if (E.isLeft(planning)) return fail(planning.left);
  const { tenancy } = inputs.right.admin;
  if (options.simulate === true)
    return simulated(context, options, planning.right, { now: request.right.now, ...(tenancy ? { tenancy } : {}) });
  return report(context, request.right, inputs.right, planning.right);
};

/** The guard's verdicts over the plans, and the approvals written into the Applications it ignores. */
const guardOf = (
  planning: Planning,
  admin: AdminInputs,
): { readonly verdicts: ReadonlyArray<GuardVerdict>; readonly warnings: ReadonlyArray<string> } => {
  if (admin.guard === undefined) return { verdicts: [], warnings: [] };
  const recorded = planning.view.snapshot.applications;
  return {
    verdicts: plannedVerdicts(admin.guard.policy, planning.planned, admin.approvals),
    warnings: ignoredApprovals(
      planning.planned.map((p) => p.application),
      (a) => recorded.get(applicationName(a)),
    ),
  };
};

/** `--out`: the plan saved (never a plan with problems: what was refused is reviewable all the same); the errors. */
const saveRequested = async (
  io: CliIo,
  request: PlanRequest,
  planning: Planning,
  admin: AdminInputs,
): Promise<ReadonlyArray<CliError>> => {
  const { out } = request.flags;
  if (out === undefined) return [];
  if (planning.problems.length > 0)
    return [usageError(`the plan was not saved to ${out}: fix the problems above, then plan again`)];
  const saved = await writeSavedPlan(io, out, {
    planned: planning.planned,
    live: planning.view.snapshot.objects,
    scopes: planning.scopes,
    now: request.now,
    cluster: planning.view.basis,
    version: io.version,
    allowSecretValues: request.flags.allowSecretValues === true,
    ...(admin.guard === undefined
      ? {}
      : { guard: { file: admin.guard.file, digest: admin.guard.digest }, policy: admin.guard.policy }),
  });
  return E.isLeft(saved) ? [...saved.left, usageError(`the plan was not saved to ${out}: see above`)] : [];
};

/** `--server-dry-run`: the plans sent to the cluster with dryRun=All (nothing without the flag). */
const dryRunRequested = (
  io: CliIo,
  request: PlanRequest,
  planning: Planning,
  inputs: PlanInputs,
): Promise<E.Either<CliError, ReadonlyArray<DryRun> | undefined>> =>
  request.flags.serverDryRun === true && request.target !== undefined
    ? dryRunOnCluster(io, request.target, planning.planned, {
        catalog: catalogOf(io, inputs, inputs.admin),
        rules: crdRules(),
      })
    : Promise.resolve(E.right(undefined));

/** What goes to stdout: the plan in the chosen format (text: its basis first, the dry run and the save after). */
const rendered = (
  io: CliIo,
  request: PlanRequest,
  planning: Planning,
  shown: {
    readonly verdicts: ReadonlyArray<GuardVerdict>;
    readonly dryRun?: ReadonlyArray<DryRun>;
    readonly saved: boolean;
  },
  document: PlanDocumentV1,
): string => {
  const { output, out } = request.flags;
  if (output === 'markdown') return renderMarkdown(planning.planned, shown.verdicts);
  if (output !== 'text') return serialize(document, output);
  const style = styleFor(io);
  return (
    basisLine(planning.view.basis) +
    renderText(planning.planned, style) +
    (shown.dryRun === undefined ? '' : renderDryRun(shown.dryRun, style)) +
    (shown.saved ? savedNote(out) : '')
  );
};

/** Prints the plan and its problems, saves it, sends the dry run, verifies convergence; then the exit code. */
const report = async (
  context: CommandContext,
  request: PlanRequest,
  inputs: PlanInputs,
  planning: Planning,
): Promise<void> => {
  const { io } = context;
  const { verdicts, warnings } = guardOf(planning, inputs.admin);
  const document = planDocument(planning.planned, { now: request.now, cluster: planning.view.basis });
  const saveErrors = await saveRequested(io, request, planning, inputs.admin);
  const dryRun = await dryRunRequested(io, request, planning, inputs);
  if (E.isLeft(dryRun)) {
    reportErrors(io, [dryRun.left]);
    return context.exit(EXIT_ERROR);
  }
  const shown = {
    verdicts,
    saved: saveErrors.length === 0,
    ...defined({ dryRun: dryRun.right }),
  };
  io.stdout.write(rendered(io, request, planning, shown, document));
  reportErrors(io, [...planning.problems, ...saveErrors]);
  for (const line of [...warnings, ...guardReport(verdicts, planApproveHint)]) io.stderr.write(`${line}\n`);
  if (dryRun.right !== undefined && diverges(dryRun.right)) {
    reportErrors(io, [clusterFailure(DRY_RUN_DIVERGES)]);
    return context.exit(EXIT_ERROR);
  }
  const convergent =
    request.flags.verifyConverges === true
      ? await verifyConverges(
          context,
          request.flags,
          planning.planned,
          inputs.inputs.crds,
          planning.view.snapshot.objects,
          {
            trusted: inputs.admin.trusted,
            ...defined({ tenancy: inputs.admin.tenancy }),
          },
        )
      : true;
  const errors = planning.problems.length > 0 || saveErrors.length > 0 || convergent === 'error';
  context.exit(
    errors ? EXIT_ERROR : planExitCode(io, document, verdicts, convergent === true, request.flags.exitCode === true),
  );
};

const DRY_RUN_DIVERGES =
  'the server dry run refused a write, would store a field otherwise than the plan sets it, or an object it could not send yet failed its offline check (see "!" and "✗" above): fix spec.manifest';

/**
 * The exit code of a plan printed without errors: 1 when an Application is stalled (its lines on
 * stderr), 3 when the guard denies, 4 when it does not converge, 2 for changes with `--exit-code`.
 */
const planExitCode = (
  io: CliIo,
  document: PlanDocumentV1,
  verdicts: ReadonlyArray<GuardVerdict>,
  convergent: boolean,
  exitCode: boolean,
): ExitCode => {
  const stuck = stalledSummary(document);
  if (stuck !== undefined) {
    io.stderr.write(`${stuck}\n`);
    return EXIT_ERROR;
  }
  if (anyDenied(verdicts)) return EXIT_GUARD_DENIED;
  if (!convergent) return EXIT_NOT_CONVERGING;
  return exitCode && document.summary.changes ? EXIT_CHANGES : EXIT_OK;
};

/**
 * `--verify-converges`: the plans carried out on the in-memory API server until a round writes
 * nothing. The verdict goes to stdout with text output, to stderr otherwise (stdout is the
 * document); a failing one always to stderr. `'error'` when the verification itself could not run.
 */
const verifyConverges = async (
  context: CommandContext,
  options: Options,
  planned: ReadonlyArray<Planned>,
  crds: ReadonlyArray<Resource>,
  objects: ReadonlyArray<Resource>,
  admin: { readonly trusted: ReadonlyArray<Resource>; readonly tenancy?: TenancyPolicy },
): Promise<boolean | 'error'> => {
  const { trusted, tenancy } = admin;
  const { io } = context;
  const verdict = await verifyConvergence({
    // A TOSCA Application is carried out as the operator would after translating it: with its translated manifest.
    applications: planned.map((p) => withDesiredManifest(p.input)),
    crds: [...trusted, ...crds],
    objects,
    scopes: scopesFor(crds, objects, trusted),
    ...defined({ tenancy }),
  });
  if (E.isLeft(verdict)) {
    reportErrors(io, [usageError(`--verify-converges: ${verdict.left}`)]);
    return 'error';
  }
  const locate = manifestLocator(planned.map((p) => p.input));
  const lines = describeConvergence(verdict.right, locate).map((line) => `verify-converges: ${line}\n`);
  const ok = converges(verdict.right);
  const out = ok && options.output === 'text' ? io.stdout : io.stderr;
  for (const line of lines) out.write(line);
  return verdict.right._tag === 'Refused' ? 'error' : ok;
};

/** `--simulate`: every round to convergence instead of the next step (app/cli/planning/simulate.ts). */
const simulated = (
  context: CommandContext,
  options: Options,
  planning: Planning,
  args: { readonly now: string; readonly tenancy?: TenancyPolicy },
): void => {
  const simulations = simulateAll({
    planned: planning.planned,
    objects: planning.view.snapshot.objects,
    unready: options.simulateUnready,
    scopes: planning.scopes,
    recorded: [...planning.view.snapshot.applications.values()],
    ...args,
  });
  context.io.stdout.write(
    options.output === 'json' || options.output === 'yaml'
      ? renderSimulationDocument(simulations, options.output)
      : renderSimulationText(simulations, styleFor(context.io), options.simulateUnready),
  );
  context.exit(simulations.every((s) => s.end._tag === 'Converged') ? EXIT_OK : EXIT_ERROR);
};

/** The plan's creates and patches sent with dryRun=All; connecting failing is one error. */
const dryRunOnCluster = async (
  io: CliIo,
  target: ClusterTarget,
  planned: ReadonlyArray<Planned>,
  offline: OfflineCheck,
): Promise<E.Either<CliError, ReadonlyArray<DryRun>>> => {
  try {
    return E.right(await serverDryRun(await io.connectWritable(target), planned, offline));
  } catch (error) {
    return E.left(clusterFailure(`--server-dry-run: ${error instanceof Error ? error.message : String(error)}`));
  }
};

/** The options of kreconcile plan, in the order --help lists them. */
const planOptions = (): ReadonlyArray<Option> => [
  ...sharedPlanOptions({
    filename: 'Application file(s); CustomResourceDefinitions in them declare custom kinds',
    snapshot:
      'live objects to plan against: kubectl get -o yaml output or kreconcile snapshot (a List or several documents)',
    exitCode: 'exit 2 when the plan would change something, 0 when not, 1 on errors',
    guard:
      'guard policy (YAML rules over plan actions, as kreconcile run --guard): exit 3 when it denies a plan no kreconcile.io/approve annotation names',
    offline:
      'plan against an empty cluster even when KUBECONFIG is set (without --snapshot, --kubeconfig or --context, KUBECONFIG names the cluster, as for kubectl)',
  }),
  asApplicationOption(),
  new Option(
    '--simulate',
    'print every reconcile round to convergence (waits, recreations, prunes) and how many rounds it takes; exit 1 when it does not converge',
  ),
  new Option(
    '--simulate-unready <Kind/name>',
    'with --simulate: this object never becomes ready (Kind/name or Kind/namespace/name); repeatable',
  )
    .argParser(collect)
    .default([], 'none'),
  new Option(
    '--out <file>',
    'also save the plan (format kreconcile.io/saved-plan/v1, with its rollout impact and field owners) for kreconcile apply and kreconcile show',
  ),
  new Option(
    '--verify-converges',
    'also carry the plan out on the in-memory API server (its defaulting, canonical values, type checks) and plan again, up to 6 rounds: exit 4 when a later plan is not empty or plans oscillate',
  ),
  new Option(
    '--allow-secret-values',
    'with --out: save a plan that writes Secret values (refused otherwise: the file would hold them in clear)',
  ),
  allowToscaFetchOption(),
  toscaFileRootOption(),
  toscaAllowHttpOption(),
  toscaAllowHostOption(),
  new Option(
    '--server-dry-run',
    'send every create and patch to the cluster with dryRun=All: show what the API server would store (defaults, webhook mutations) and fail (exit 1) when it would refuse a write or store a planned field otherwise',
  ),
];

export const planCommand: CliCommand = {
  name: 'plan',
  create: (context) =>
    planOptions()
      .reduce(
        (command, option) => command.addOption(option),
        new Command('plan')
          .summary('show what the operator would do for Applications (offline dry-run)')
          .description(
            'Plans one reconcile of each Application: the resources the operator would create, patch (observed fields only) or delete, conflicts with objects it does not own, and the status it would write. Nothing is ever written to a cluster.',
          ),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
