/**
 * `kreconcile plan`: what the operator would do for the given Applications, computed offline by
 * the pure core against a snapshot, the live cluster (read-only) or an empty cluster.
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { clusterFailure, usageError, type CliError } from '../cli-error.js';
import {
  asApplicationOption,
  contextOption,
  filenameOption,
  recursiveOption,
  kubeconfigOption,
  READ_ONLY,
  namespaceOption,
  planOutputOption,
  reportErrors,
  collect,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import {
  EXIT_CHANGES,
  EXIT_ERROR,
  EXIT_GUARD_DENIED,
  EXIT_NOT_CONVERGING,
  EXIT_OK,
  PLAN_EXIT_CODES_HELP,
} from '../exit-codes.js';
import { approvalsFileOption, approveOption, readApprovals } from '../guard/approvals.js';
import { anyDenied, guardReport, ignoredApprovals, plannedVerdicts, planApproveHint } from '../guard/check.js';
import { guardSchemaErrors, readGuard } from '../guard/read-guard.js';
import { applicationName, placedErrors, withDesiredManifest } from '../input/applications.js';
import { readValidManifestInputs } from '../input/manifest-inputs.js';
import type { PlainManifests } from '../input/plain-manifests.js';
import { catalogFor, manifestRefusalErrors, readCrdFlags } from '../input/schema-catalog.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaFlags,
} from '../input/tosca.js';
import { STDIN } from '../input/source.js';
import { resolveNow } from '../now.js';
import { clusterView, type ViewRequest } from '../planning/cluster-view.js';
import { planEachApplication, type Planned } from '../planning/plan-applications.js';
import { diverges, renderDryRun, serverDryRun, type DryRun, type OfflineCheck } from '../planning/server-dry-run.js';
import { crdRules } from '../../../adapters/cel/crd-rules.js';
import { simulateAll } from '../planning/simulate.js';
import { converges, describeConvergence, verifyConvergence } from '../planning/verify-converges.js';
import { manifestLocator } from '../planning/manifest-locator.js';
import { renderSimulationDocument, renderSimulationText } from '../render/simulation.js';
import { renderMarkdown } from '../render/markdown.js';
import type { CliIo, ClusterTarget } from '../io.js';
import { readFieldManagers, readPolicy } from '../policy/read-policy.js';
import { scopesFor } from '../input/scopes.js';
import { writeSavedPlan } from '../saved-plan/save.js';
import { planDocument, type ClusterBasis, type PlanDocumentV1 } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import { styleFor } from '../style.js';
import { renderText } from '../render/text.js';
import {
  DEFAULT_KNOWN_MANAGERS,
  isResource,
  type Application,
  type Resource,
  type ScopeTable,
  type TenancyPolicy,
} from '../../../core/index.js';

type Options = ToscaFlags & {
  readonly filename: ReadonlyArray<string>;
  readonly asApplication?: string;
  readonly recursive?: boolean;
  readonly snapshot: ReadonlyArray<string>;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace: string;
  readonly output: 'text' | 'json' | 'yaml' | 'markdown';
  readonly exitCode?: boolean;
  readonly now?: string;
  readonly policy?: string;
  readonly fieldManagers?: string;
  readonly out?: string;
  readonly allowSecretValues?: boolean;
  readonly verifyConverges?: boolean;
  readonly serverDryRun?: boolean;
  readonly guard?: string;
  readonly crd: ReadonlyArray<string>;
  readonly simulate?: boolean;
  readonly simulateUnready: ReadonlyArray<string>;
  readonly approve: ReadonlyArray<string>;
  readonly approvalsFile?: string;
  readonly offline?: boolean;
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

const usageErrors = (options: Options): ReadonlyArray<CliError> => [
  ...(options.filename.length === 0
    ? [usageError('name the Applications to plan with -f app.yaml (see kreconcile plan --help)')]
    : []),
  ...(options.snapshot.length > 0 && (options.kubeconfig !== undefined || options.context !== undefined)
    ? [
        usageError(
          '--snapshot and --kubeconfig/--context exclude each other: plan against a recording or the live cluster, not both',
        ),
      ]
    : []),
  ...(options.guard === undefined && (options.approve.length > 0 || options.approvalsFile !== undefined)
    ? [usageError('--approve and --approvals-file approve what --guard denies: give --guard')]
    : []),
  ...(options.offline === true && (options.kubeconfig !== undefined || options.context !== undefined)
    ? [usageError('--offline plans against an empty cluster: leave out --kubeconfig/--context, or --offline')]
    : []),
  ...(options.serverDryRun === true && options.kubeconfig === undefined && options.context === undefined
    ? [usageError('--server-dry-run sends the plan to a cluster: give it with --kubeconfig or --context')]
    : []),
  ...([...options.filename, ...options.snapshot].filter((name) => name === STDIN).length > 1
    ? [usageError('standard input (-) can be read only once: name it in one -f or --snapshot')]
    : []),
];

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

/** Where to plan: a snapshot, the cluster of --kubeconfig/--context or of KUBECONFIG (as kubectl reads it), or nothing. */
export const targetOf = (
  options: Pick<Options, 'kubeconfig' | 'context' | 'snapshot' | 'offline'>,
  env: Readonly<Record<string, string | undefined>>,
): Pick<ViewRequest, 'target'> => {
  if (options.kubeconfig !== undefined || options.context !== undefined)
    return {
      target: {
        ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
        ...(options.context === undefined ? {} : { context: options.context }),
      },
    };
  const fromEnv = env.KUBECONFIG ?? '';
  // kubectl reads KUBECONFIG when no --kubeconfig is given; a snapshot or --offline says otherwise.
  return fromEnv === '' || options.snapshot.length > 0 || options.offline === true ? {} : { target: {} }; // the client's own lookup reads KUBECONFIG, a list of files included
};

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

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  const fail = (errors: ReadonlyArray<CliError>): void => {
    reportErrors(io, errors);
    context.exit(EXIT_ERROR);
  };
  const usage = usageErrors(options);
  if (usage.length > 0) return fail(usage);
  const now = resolveNow(options.now, io.now);
  if (E.isLeft(now)) return fail([now.left]);
  const tosca = toscaAccessOf(options);
  if (E.isLeft(tosca)) return fail([usageError(tosca.left)]);
  const read = await readValidManifestInputs(io, {
    ...options,
    tosca: tosca.right,
    ...(options.asApplication === undefined
      ? {}
      : { plainManifests: { mode: 'application', name: options.asApplication } satisfies PlainManifests }),
  });
  if (E.isLeft(read)) return fail(read.left);
  const { inputs: valid, problems: inputProblems } = read.right;
  // One bad Application hides no other: the valid ones are planned, every problem is reported, exit 1.
  if (valid.applications.length === 0) return fail(inputProblems);
  const tenancy = options.policy === undefined ? E.right(undefined) : await readPolicy(io, options.policy);
  if (E.isLeft(tenancy)) return fail(tenancy.left);
  const managers =
    options.fieldManagers === undefined ? E.right(undefined) : await readFieldManagers(io, options.fieldManagers);
  if (E.isLeft(managers)) return fail(managers.left);
  const guard = options.guard === undefined ? E.right(undefined) : await readGuard(io, options.guard);
  if (E.isLeft(guard)) return fail(guard.left);
  const approvals = await readApprovals(io, options);
  if (E.isLeft(approvals)) return fail(approvals.left);
  // CRDs the admin gives with --crd are trusted to set scopes; CRDs among -f are tenant input (issue 19).
  const flagged = await readCrdFlags(io, options.crd);
  if (flagged.errors.length > 0) return fail(flagged.errors);
  const trusted = flagged.crds.filter(isResource);
  const unguarded =
    guard.right === undefined
      ? []
      : guardSchemaErrors(
          guard.right,
          catalogFor(io, { flagCrds: flagged.crds, inputCrds: valid.crds, applications: valid.applications }),
        );
  if (unguarded.length > 0) return fail(unguarded);
  const request: ViewRequest = {
    snapshots: options.snapshot,
    ...targetOf(options, io.env),
    ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
  };
  const viewed = await clusterView(io, request, valid.applications, valid.crds);
  if (E.isLeft(viewed)) return fail(viewed.left);
  const view = { ...viewed.right, basis: shownBasis(viewed.right.basis, options, io.env) };
  const each = planEachApplication({
    ...valid,
    snapshot: view.snapshot,
    now: now.right,
    ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
    ...(managers.right === undefined ? {} : { fieldManagers: [...DEFAULT_KNOWN_MANAGERS, ...managers.right] }),
    trusted,
  });
  // What the API server would refuse on write (a quantity, a schedule, a removed apiVersion): the operator would stall.
  const refusals = placedErrors(manifestRefusalErrors(valid.applications), valid.applications);
  const problems = [...inputProblems, ...refusals, ...placedErrors(each.problems, valid.applications)];
  if (each.planned.length === 0) return fail(problems);
  const recorded = view.snapshot.applications;
  const verdicts = guard.right === undefined ? [] : plannedVerdicts(guard.right.policy, each.planned, approvals.right);
  const approvalWarnings =
    guard.right === undefined
      ? []
      : ignoredApprovals(
          each.planned.map((p) => p.application),
          (a) => recorded.get(applicationName(a)),
        );
  if (options.simulate === true)
    return simulated(context, options, each.planned, view.snapshot.objects, {
      scopes: scopesFor(valid.crds, view.snapshot.objects, trusted),
      now: now.right,
      recorded: [...view.snapshot.applications.values()],
      ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
    });
  const document = planDocument(each.planned, { now: now.right, cluster: view.basis });
  // A plan with problems is printed, never saved: what was refused is reviewable all the same.
  const notSaved =
    problems.length > 0 && options.out !== undefined
      ? [usageError(`the plan was not saved to ${options.out}: fix the problems above, then plan again`)]
      : [];
  const saved =
    options.out === undefined || notSaved.length > 0
      ? undefined
      : await writeSavedPlan(io, options.out, {
          planned: each.planned,
          live: view.snapshot.objects,
          scopes: scopesFor(valid.crds, view.snapshot.objects, trusted),
          now: now.right,
          cluster: view.basis,
          version: io.version,
          allowSecretValues: options.allowSecretValues === true,
          ...(guard.right === undefined
            ? {}
            : { guard: { file: guard.right.file, digest: guard.right.digest }, policy: guard.right.policy }),
        });
  const saveErrors = [
    ...notSaved,
    ...(saved !== undefined && E.isLeft(saved)
      ? [...saved.left, usageError(`the plan was not saved to ${options.out ?? ''}: see above`)]
      : []),
  ];
  const dryRun =
    options.serverDryRun === true && request.target !== undefined
      ? await dryRunOnCluster(io, request.target, each.planned, {
          catalog: catalogFor(io, { flagCrds: flagged.crds, inputCrds: valid.crds, applications: valid.applications }),
          rules: crdRules(),
        })
      : E.right(undefined);
  if (E.isLeft(dryRun)) return fail([dryRun.left]);
  io.stdout.write(
    options.output === 'text'
      ? basisLine(view.basis) +
          renderText(each.planned, styleFor(io)) +
          (dryRun.right === undefined ? '' : renderDryRun(dryRun.right, styleFor(io))) +
          (saveErrors.length > 0 ? '' : savedNote(options.out))
      : options.output === 'markdown'
        ? renderMarkdown(each.planned, verdicts)
        : serialize(document, options.output),
  );
  reportErrors(io, [...problems, ...saveErrors]);
  for (const line of [...approvalWarnings, ...guardReport(verdicts, planApproveHint)]) io.stderr.write(`${line}\n`);
  if (dryRun.right !== undefined && diverges(dryRun.right)) {
    reportErrors(io, [
      clusterFailure(
        'the server dry run refused a write, would store a field otherwise than the plan sets it, or an object it could not send yet failed its offline check (see "!" and "✗" above): fix spec.manifest',
      ),
    ]);
    return context.exit(EXIT_ERROR);
  }
  const convergent =
    options.verifyConverges === true
      ? await verifyConverges(context, options, each.planned, valid.crds, view.snapshot.objects, {
          trusted,
          ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
        })
      : true;
  if (problems.length > 0 || saveErrors.length > 0) return context.exit(EXIT_ERROR);
  if (convergent === 'error') return context.exit(EXIT_ERROR);
  const stuck = stalledSummary(document);
  if (stuck !== undefined) {
    io.stderr.write(`${stuck}\n`);
    return context.exit(EXIT_ERROR);
  }
  if (anyDenied(verdicts)) return context.exit(EXIT_GUARD_DENIED);
  if (!convergent) return context.exit(EXIT_NOT_CONVERGING);
  context.exit(options.exitCode === true && document.summary.changes ? EXIT_CHANGES : EXIT_OK);
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
    ...(tenancy === undefined ? {} : { tenancy }),
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
  planned: ReadonlyArray<Planned>,
  objects: ReadonlyArray<Resource>,
  args: {
    readonly scopes: ScopeTable;
    readonly now: string;
    readonly recorded: ReadonlyArray<Application>;
    readonly tenancy?: TenancyPolicy;
  },
): void => {
  const simulations = simulateAll({ planned, objects, unready: options.simulateUnready, ...args });
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

export const planCommand: CliCommand = {
  name: 'plan',
  create: (context) =>
    new Command('plan')
      .summary('show what the operator would do for Applications (offline dry-run)')
      .description(
        'Plans one reconcile of each Application: the resources the operator would create, patch (observed fields only) or delete, conflicts with objects it does not own, and the status it would write. Nothing is ever written to a cluster.',
      )
      .addOption(filenameOption('Application file(s); CustomResourceDefinitions in them declare custom kinds'))
      .addOption(asApplicationOption())
      .addOption(recursiveOption())
      .addOption(
        new Option(
          '--snapshot <file>',
          'live objects to plan against: kubectl get -o yaml output or kreconcile snapshot (a List or several documents); repeatable',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(kubeconfigOption(READ_ONLY))
      .addOption(contextOption())
      .addOption(namespaceOption())
      .addOption(planOutputOption())
      .addOption(new Option('--exit-code', 'exit 2 when the plan would change something, 0 when not, 1 on errors'))
      .addOption(
        new Option(
          '--policy <file>',
          "the admin's tenancy policy the operator runs with (kreconcile run --policy); default: each Application writes only to its own namespace",
        ),
      )
      .addOption(
        new Option(
          '--field-managers <file>',
          'field managers whose fields are left to them, added to the known ones (docs/field-owners.md); as kreconcile run --field-managers',
        ),
      )
      .addOption(
        new Option(
          '--crd <file|dir>',
          "the admin's CustomResourceDefinitions: the only CRDs that may say a kind's scope (CRDs in -f only add kinds nobody knows); repeatable",
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(
        new Option(
          '--guard <file>',
          'guard policy (YAML rules over plan actions, as kreconcile run --guard): exit 3 when it denies a plan no kreconcile.io/approve annotation names',
        ),
      )
      .addOption(
        new Option(
          '--simulate',
          'print every reconcile round to convergence (waits, recreations, prunes) and how many rounds it takes; exit 1 when it does not converge',
        ),
      )
      .addOption(
        new Option(
          '--simulate-unready <Kind/name>',
          'with --simulate: this object never becomes ready (Kind/name or Kind/namespace/name); repeatable',
        )
          .argParser(collect)
          .default([], 'none'),
      )
      .addOption(approveOption())
      .addOption(approvalsFileOption())
      .addOption(
        new Option(
          '--offline',
          'plan against an empty cluster even when KUBECONFIG is set (without --snapshot, --kubeconfig or --context, KUBECONFIG names the cluster, as for kubectl)',
        ),
      )
      .addOption(new Option('--now <time>', 'RFC 3339 time the plan is computed at (condition times; default: now)'))
      .addOption(
        new Option(
          '--out <file>',
          'also save the plan (format kreconcile.io/saved-plan/v1) for kreconcile apply and kreconcile show',
        ),
      )
      .addOption(
        new Option(
          '--verify-converges',
          'also carry the plan out on the in-memory API server (its defaulting, canonical values, type checks) and plan again, up to 6 rounds: exit 3 when a later plan is not empty or plans oscillate',
        ),
      )
      .addOption(
        new Option(
          '--allow-secret-values',
          'with --out: save a plan that writes Secret values (refused otherwise: the file would hold them in clear)',
        ),
      )
      .addOption(allowToscaFetchOption())
      .addOption(toscaFileRootOption())
      .addOption(toscaAllowHttpOption())
      .addOption(toscaAllowHostOption())
      .addHelpText('after', EXAMPLES)
      .addOption(
        new Option(
          '--server-dry-run',
          'send every create and patch to the cluster with dryRun=All: show what the API server would store (defaults, webhook mutations) and fail (exit 1) when it would refuse a write or store a planned field otherwise',
        ),
      )
      .action(async (options: Options) => execute(context, options)),
};
