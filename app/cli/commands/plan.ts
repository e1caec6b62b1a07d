/**
 * `kreconcile plan`: what the operator would do for the given Applications, computed offline by
 * the pure core against a snapshot, the live cluster (read-only) or an empty cluster.
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import type { Resource, ScopeTable, TenancyPolicy } from '../../../core/index.js';
import { usageError, type CliError } from '../cli-error.js';
import {
  contextOption,
  filenameOption,
  recursiveOption,
  kubeconfigOption,
  READ_ONLY,
  namespaceOption,
  reportErrors,
  collect,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_GUARD_DENIED, EXIT_OK, PLAN_EXIT_CODES_HELP } from '../exit-codes.js';
import { anyDenied, guardReport, plannedVerdicts } from '../guard/check.js';
import { readGuard } from '../guard/read-guard.js';
import { applicationName } from '../input/applications.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import { STDIN } from '../input/source.js';
import { resolveNow } from '../now.js';
import { clusterView, type ViewRequest } from '../planning/cluster-view.js';
import { planApplications, type Planned } from '../planning/plan-applications.js';
import { simulateAll } from '../planning/simulate.js';
import { renderSimulationDocument, renderSimulationText } from '../render/simulation.js';
import { readPolicy } from '../policy/read-policy.js';
import { scopesFor } from '../planning/scopes.js';
import { writeSavedPlan } from '../saved-plan/save.js';
import { planDocument } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import { styleFor } from '../render/style.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';

type Options = {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly snapshot: ReadonlyArray<string>;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace: string;
  readonly output: 'text' | 'json' | 'yaml' | 'markdown';
  readonly exitCode?: boolean;
  readonly now?: string;
  readonly policy?: string;
  readonly out?: string;
  readonly allowSecretValues?: boolean;
  readonly guard?: string;
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

  # In CI: refuse plans the guard policy denies (exit 3; the operator's run --guard refuses the same)
  kreconcile plan -f app.yaml --context prod --guard guard.yaml

  # Custom kinds: give their CustomResourceDefinitions with -f
  cat app.yaml | kreconcile plan -f - -f crds.yaml

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
  ...([...options.filename, ...options.snapshot].filter((name) => name === STDIN).length > 1
    ? [usageError('standard input (-) can be read only once: name it in one -f or --snapshot')]
    : []),
];

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
  const inputs = await readManifestInputs(io, options);
  if (E.isLeft(inputs)) return fail(inputs.left);
  const tenancy = options.policy === undefined ? E.right(undefined) : await readPolicy(io, options.policy);
  if (E.isLeft(tenancy)) return fail(tenancy.left);
  const guard = options.guard === undefined ? E.right(undefined) : await readGuard(io, options.guard);
  if (E.isLeft(guard)) return fail(guard.left);
  const live = options.kubeconfig !== undefined || options.context !== undefined;
  const request: ViewRequest = {
    snapshots: options.snapshot,
    ...(live
      ? {
          target: {
            ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
            ...(options.context === undefined ? {} : { context: options.context }),
          },
        }
      : {}),
  };
  const view = await clusterView(io, request, inputs.right.applications, inputs.right.crds);
  if (E.isLeft(view)) return fail(view.left);
  const planned = planApplications({
    ...inputs.right,
    snapshot: view.right.snapshot,
    now: now.right,
    ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
  });
  if (E.isLeft(planned)) return fail(planned.left);
  const recorded = view.right.snapshot.applications;
  const verdicts =
    guard.right === undefined
      ? []
      : plannedVerdicts(guard.right.policy, planned.right, (a) => recorded.get(applicationName(a)));
  if (options.simulate === true)
    return simulated(context, options, planned.right, view.right.snapshot.objects, {
      scopes: scopesFor(inputs.right.crds, view.right.snapshot.objects),
      now: now.right,
      ...(tenancy.right === undefined ? {} : { tenancy: tenancy.right }),
    });
  const document = planDocument(planned.right, { now: now.right, cluster: view.right.basis });
  const saved =
    options.out === undefined
      ? undefined
      : await writeSavedPlan(io, options.out, {
          planned: planned.right,
          live: view.right.snapshot.objects,
          scopes: scopesFor(inputs.right.crds, view.right.snapshot.objects),
          now: now.right,
          cluster: view.right.basis,
          version: io.version,
          allowSecretValues: options.allowSecretValues === true,
          ...(guard.right === undefined ? {} : { guard: { file: guard.right.file, digest: guard.right.digest } }),
        });
  if (saved !== undefined && E.isLeft(saved)) return fail(saved.left);
  io.stdout.write(
    options.output === 'text'
      ? renderText(planned.right, styleFor(io)) + savedNote(options.out)
      : options.output === 'markdown'
        ? renderMarkdown(planned.right, verdicts)
        : serialize(document, options.output),
  );
  for (const line of guardReport(verdicts)) io.stderr.write(`${line}\n`);
  if (anyDenied(verdicts)) return context.exit(EXIT_GUARD_DENIED);
  context.exit(options.exitCode === true && document.summary.changes ? EXIT_CHANGES : EXIT_OK);
};

/** `--simulate`: every round to convergence instead of the next step (app/cli/planning/simulate.ts). */
const simulated = (
  context: CommandContext,
  options: Options,
  planned: ReadonlyArray<Planned>,
  objects: ReadonlyArray<Resource>,
  args: { readonly scopes: ScopeTable; readonly now: string; readonly tenancy?: TenancyPolicy },
): void => {
  const simulations = simulateAll({ planned, objects, unready: options.simulateUnready, ...args });
  context.io.stdout.write(
    options.output === 'json' || options.output === 'yaml'
      ? renderSimulationDocument(simulations, options.output)
      : renderSimulationText(simulations, styleFor(context.io), options.simulateUnready),
  );
  context.exit(simulations.every((s) => s.end._tag === 'Converged') ? EXIT_OK : EXIT_ERROR);
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
      .addOption(
        new Option('-o, --output <format>', 'output format (markdown: a pull request comment)')
          .choices(['text', 'json', 'yaml', 'markdown'])
          .default('text'),
      )
      .addOption(new Option('--exit-code', 'exit 2 when the plan would change something, 0 when not, 1 on errors'))
      .addOption(
        new Option(
          '--policy <file>',
          "the admin's tenancy policy the operator runs with (kreconcile run --policy); default: each Application writes only to its own namespace",
        ),
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
      .addOption(new Option('--now <time>', 'RFC 3339 time the plan is computed at (condition times; default: now)'))
      .addOption(
        new Option(
          '--out <file>',
          'also save the plan (format kreconcile.io/saved-plan/v1) for kreconcile apply and kreconcile show',
        ),
      )
      .addOption(
        new Option(
          '--allow-secret-values',
          'with --out: save a plan that writes Secret values (refused otherwise: the file would hold them in clear)',
        ),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
