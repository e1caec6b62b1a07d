/**
 * `kreconcile validate`: checks Applications (fields, manifest, observer schemas) without
 * planning, and every manifest resource against its kind's schema: Kubernetes' built-in kinds
 * offline (the committed schema file), CRD-defined kinds from the input's CRDs and `--crd`, and
 * with `--kubeconfig`/`--context` the cluster's OpenAPI schemas.
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import {
  catalogOfDocuments,
  type Application,
  type Resource,
  type SchemaCatalog,
  type TenancyPolicy,
} from '../../../core/index.js';
import { clusterFailure, showCliError, usageError, type CliError } from '../cli-error.js';
import {
  collect,
  contextOption,
  filenameOption,
  recursiveOption,
  kubeconfigOption,
  namespaceOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { desiredManifest, subjectOf, type ApplicationInput } from '../input/applications.js';
import { inInputOrder } from '../input/load.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import { catalogFor, manifestSchemaErrors, readCrdFlags } from '../input/schema-catalog.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaFlags,
} from '../input/tosca.js';
import type { ClusterTarget, CliIo } from '../io.js';
import { errorAt } from '../input/entries.js';
import { dependsOnProblems } from '../planning/application-order.js';
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import type { ExpressionProblem } from '../../../core/ports/expressions.js';
import { planEachApplication, TOO_LARGE_PREFIX } from '../planning/plan-applications.js';
import { EMPTY_SNAPSHOT } from '../input/snapshot.js';

type Options = ToscaFlags & {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly namespace: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly crd: ReadonlyArray<string>;
};

const EXAMPLES = `
Examples:
  kreconcile validate -f app.yaml
  kreconcile validate -f apps/shop.yaml -f apps/blog.yaml
  helm template ./chart | kreconcile validate -f -
  kreconcile validate -f app.yaml --crd crds/                    # custom resources against their CRDs' schemas
  kreconcile validate -f app.yaml --kubeconfig ~/.kube/config   # against the cluster's schemas (CRDs included)

Every problem is reported on its own line: file:line:column, document, JSON path, what is
wrong and what to do, e.g.
  error: app.yaml:14:9: document 1 (Application shop/web): spec.observerSchema[0].spec.replicas: observed fields are marked true (or null), got 3: write true to observe this field
  error: app.yaml:9:3: document 1 (Application shop/web): spec.observerSchemas: unknown field (the API server would refuse or drop it): did you mean \`observerSchema\`?
  error: app.yaml:21:11: document 1 (Application shop/web): spec.manifest[0].spec.replica: unknown field of apps/v1 Deployment (the API server would refuse or drop it): did you mean \`replicas\`?

Schemas: built-in kinds of Kubernetes 1.36 ship with kreconcile (checked offline); a custom
resource is checked against its CustomResourceDefinition from -f, from a manifest, from --crd, or
from the cluster (--kubeconfig). A custom resource whose CRD is not given is not checked.

${EXIT_CODES_HELP}
`;

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  if (options.filename.length === 0) {
    reportErrors(io, [
      usageError('name the Applications to validate with -f app.yaml (see kreconcile validate --help)'),
    ]);
    return context.exit(EXIT_ERROR);
  }
  const tosca = toscaAccessOf(options);
  const inputs = E.isLeft(tosca)
    ? E.left([usageError(tosca.left)])
    : await readManifestInputs(io, { ...options, tosca: tosca.right });
  if (E.isLeft(inputs)) {
    reportErrors(io, inputs.left);
    return context.exit(EXIT_ERROR);
  }
  const { applications, crds } = inputs.right;
  const flagged = await readCrdFlags(io, options.crd);
  const target = targetOf(options);
  const cluster = target === undefined ? E.right(undefined) : await clusterCatalog(io, target, applications);
  const dependsOn = dependsOnProblems(applications);
  const problems = [
    ...flagged.errors,
    ...(E.isLeft(cluster) ? [cluster.left] : []),
    ...applications.flatMap(readinessRuleErrors),
    ...dependsOn.errors,
    ...sizeErrors(applications, crds),
    ...manifestSchemaErrors(
      applications,
      catalogFor(io, {
        flagCrds: flagged.crds,
        inputCrds: crds,
        applications,
        ...(E.isRight(cluster) && cluster.right !== undefined ? { cluster: cluster.right } : {}),
      }),
    ),
  ];
  for (const warning of dependsOn.warnings)
    io.stderr.write(`${showCliError(warning).replace(/^error:/, 'warning:')}\n`);
  if (problems.length > 0) {
    reportErrors(io, inInputOrder(problems, [...options.filename, ...options.crd]));
    return context.exit(EXIT_ERROR);
  }
  for (const { application, origin, translated } of applications) {
    io.stdout.write(
      `${subjectOf(application)} (${origin.file}, document ${origin.document}): valid${translated === undefined ? '' : translationNote(application, translated.length)}\n`,
    );
  }
  context.exit(EXIT_OK);
};

const EVERYWHERE: TenancyPolicy = {
  destinations: [{ from: '*', to: ['*'] }],
  clusterKinds: [{ from: '*', kinds: ['*'] }],
};

/**
 * Applications the operator would refuse as too large to store (decision 0023): planned against
 * an empty cluster, as on their first reconcile, and sized with the status that plan leads to.
 */
const sizeErrors = (
  applications: ReadonlyArray<ApplicationInput>,
  crds: ReadonlyArray<Resource>,
): ReadonlyArray<CliError> =>
  planEachApplication({
    applications,
    crds,
    snapshot: EMPTY_SNAPSHOT,
    now: new Date(0).toISOString(),
    // Sizes do not depend on who may write where: every child is counted, as with an admin's open policy.
    tenancy: EVERYWHERE,
  }).problems.filter((problem) => problem.message.startsWith(TOO_LARGE_PREFIX));

/** `line 1 column 14: …`: where in the expression the CEL library refused it, when it says. */
const showProblem = (problem: ExpressionProblem): string =>
  `${problem.line === undefined ? '' : `line ${problem.line} `}${problem.column === undefined ? '' : `column ${problem.column} `}${problem.message}`.trim();

/** Each `spec.readiness` CEL expression the evaluator refuses, at its field, with the position inside it. */
const readinessRuleErrors = (input: ApplicationInput): ReadonlyArray<CliError> =>
  (input.application.spec.readiness ?? []).flatMap((rule, index) =>
    (['ready', 'failed'] as const).flatMap((field) => {
      const source = rule[field];
      const compiled = source === undefined ? undefined : celEvaluator.compile(source);
      if (compiled === undefined || E.isRight(compiled)) return [];
      return [
        errorAt(
          input.origin,
          ['spec', 'readiness', index, field],
          `invalid CEL expression: ${showProblem(compiled.left)}: write a CEL expression over self, the live object, that gives a boolean (docs/application.md, spec.readiness)`,
          subjectOf(input.application),
        ),
      ];
    }),
  );

/** `, translated from spec.csar https://… into 3 resources`: what was checked, for a TOSCA Application. */
const translationNote = (application: Application, resources: number): string => {
  const { spec } = application;
  const source = spec.csar === undefined ? 'spec.tosca' : 'spec.csar';
  const url = spec.csar ?? spec.tosca;
  return `, translated from ${typeof url === 'string' ? `${source} ${url}` : `the inline ${source}`} into ${resources} resource${resources === 1 ? '' : 's'}`;
};

const targetOf = (options: Options): ClusterTarget | undefined =>
  options.kubeconfig === undefined && options.context === undefined
    ? undefined
    : {
        ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
        ...(options.context === undefined ? {} : { context: options.context }),
      };

/** The cluster's OpenAPI v3 schemas of the manifests' apiVersions; the cluster failing is one error. */
const clusterCatalog = async (
  io: CliIo,
  target: ClusterTarget,
  applications: ReadonlyArray<ApplicationInput>,
): Promise<E.Either<CliError, SchemaCatalog>> => {
  if (io.fetchOpenApi === undefined)
    return E.left(
      clusterFailure('this kreconcile cannot read cluster schemas: validate offline (without --kubeconfig/--context)'),
    );
  const apiVersions = applications.flatMap((input) => desiredManifest(input).map((resource) => resource.apiVersion));
  return io.fetchOpenApi(target, apiVersions).then(
    (documents) => E.right(catalogOfDocuments(documents)),
    (error: unknown) => E.left(clusterFailure(error instanceof Error ? error.message : String(error))),
  );
};

export const validateCommand: CliCommand = {
  name: 'validate',
  create: (context) =>
    new Command('validate')
      .summary('check Applications and their observer schemas')
      .description(
        "Validates each Application offline: its fields (unknown ones refused, with the closest known name), its manifest (apiVersion, kind, metadata.name, no duplicates), its observer schemas (docs/behaviour.md §2), and each manifest resource against its kind's schema (unknown fields and kinds with the closest known name, types, enums, required fields): Kubernetes 1.36's built-in kinds offline, custom resources from the input's CRDs or --crd, and with --kubeconfig/--context the cluster's OpenAPI schemas. Reports every error with its path; plans nothing.",
      )
      .addOption(filenameOption('Application file(s)'))
      .addOption(recursiveOption())
      .addOption(namespaceOption())
      .addOption(kubeconfigOption(': check manifests against its OpenAPI schemas (reads /openapi/v3 only)'))
      .addOption(contextOption())
      .addOption(allowToscaFetchOption())
      .addOption(toscaFileRootOption())
      .addOption(toscaAllowHttpOption())
      .addOption(toscaAllowHostOption())
      .addOption(
        new Option('--crd <file|dir>', 'CustomResourceDefinitions to check custom resources against; repeatable')
          .argParser(collect)
          .default([], 'none'),
      )
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
