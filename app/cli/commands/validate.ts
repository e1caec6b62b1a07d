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
} from '../../../core/internal.js';
import { clusterFailure, showCliError, usageError, type CliError } from '../cli-error.js';
import {
  asApplicationOption,
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
import { desiredManifest, placedErrors, subjectOf, type ApplicationInput } from '../input/applications.js';
import { inInputOrder } from '../input/load.js';
import { readValidManifestInputs } from '../input/manifest-inputs.js';
import { describeResource, type PlainManifests } from '../input/plain-manifests.js';
import {
  reportIsValid,
  reportJson,
  reportJunit,
  validLines,
  type CheckedInput,
  type ValidationReport,
} from '../render/validation-report.js';
import { catalogFor, manifestSchemaErrors, readCrdFlags } from '../input/schema-catalog.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaAccess,
  type ToscaFlags,
} from '../input/tosca.js';
import type { ClusterTarget, CliIo } from '../io.js';
import { errorAt } from '../input/entries.js';
import { dependsOnProblems } from '../planning/application-order.js';
import { celEvaluator } from '../../../adapters/cel/cel-evaluator.js';
import type { ExpressionProblem } from '../../../core/ports/expressions.js';
import { planEachApplication, TOO_LARGE_PREFIX } from '../planning/plan-applications.js';
import { EMPTY_SNAPSHOT } from '../input/snapshot.js';
import { defined } from '../../../core/json/defined.js';

export type ValidateFlags = ToscaFlags & {
  readonly asApplication?: string;
  readonly output: 'text' | 'json' | 'junit';
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
  helm template ./chart | kreconcile validate -f -            # plain manifests, each checked on its own
  kustomize build overlays/prod | kreconcile validate -f - --as-application shop -n shop
  kreconcile validate -f apps/ -R -o junit > validate.xml       # a JUnit report for CI
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

/** `kreconcile validate`'s flags, decoded: how templates are fetched, how plain manifests are read, which cluster. */
export type ValidateSettings = {
  readonly tosca: ToscaAccess;
  readonly plainManifests: PlainManifests;
  /** `--kubeconfig`/`--context`: the cluster whose OpenAPI schemas are checked against too. */
  readonly target: ClusterTarget | undefined;
};

/** Decodes the flags (pure: reads no file). Errors: the first problem, one line. */
export const decodeValidateFlags = (options: ValidateFlags): E.Either<string, ValidateSettings> => {
  if (options.filename.length === 0)
    return E.left('name the Applications or manifests to validate with -f app.yaml (see kreconcile validate --help)');
  return E.map((tosca: ToscaAccess) => ({
    tosca,
    plainManifests:
      options.asApplication === undefined
        ? { mode: 'resources' as const }
        : { mode: 'application' as const, name: options.asApplication },
    target: targetOf(options),
  }))(toscaAccessOf(options));
};

/** Every check beyond reading the inputs: CRD flags, the cluster's schemas, CEL rules, dependsOn, sizes, schemas. */
const inputChecks = async (
  io: CliIo,
  options: ValidateFlags,
  target: ClusterTarget | undefined,
  {
    applications,
    crds,
  }: { readonly applications: ReadonlyArray<ApplicationInput>; readonly crds: ReadonlyArray<Resource> },
): Promise<{ readonly errors: ReadonlyArray<CliError>; readonly warnings: ReadonlyArray<CliError> }> => {
  const flagged = await readCrdFlags(io, options.crd);
  const cluster = target === undefined ? E.right(undefined) : await clusterCatalog(io, target, applications);
  const dependsOn = dependsOnProblems(applications);
  const catalog = catalogFor(io, {
    flagCrds: flagged.crds,
    inputCrds: crds,
    applications,
    ...(E.isRight(cluster) && cluster.right !== undefined ? { cluster: cluster.right } : {}),
  });
  const errors = [
    ...flagged.errors,
    ...(E.isLeft(cluster) ? [cluster.left] : []),
    ...applications.flatMap(readinessRuleErrors),
    ...dependsOn.errors,
    ...sizeErrors(
      applications.filter((input) => input.plain?.named !== false),
      crds,
    ),
    ...manifestSchemaErrors(applications, catalog),
  ];
  return { errors, warnings: dependsOn.warnings };
};

const execute = async (context: CommandContext, options: ValidateFlags): Promise<void> => {
  const { io } = context;
  const fail = (errors: ReadonlyArray<CliError>): void => {
    reportErrors(io, errors);
    context.exit(EXIT_ERROR);
  };
  const settings = decodeValidateFlags(options);
  if (E.isLeft(settings)) return fail([usageError(settings.left)]);
  const inputs = await readValidManifestInputs(io, { ...options, ...settings.right });
  if (E.isLeft(inputs)) return fail(inputs.left);
  const { applications } = inputs.right.inputs;
  const checks = await inputChecks(io, options, settings.right.target, inputs.right.inputs);
  for (const warning of checks.warnings) io.stderr.write(`${showCliError(warning).replace(/^error:/, 'warning:')}\n`);
  const problems = inInputOrder(
    [...inputs.right.problems, ...placedErrors(checks.errors, applications)],
    [...options.filename, ...options.crd],
  );
  const report = validationReport(applications, problems);
  reportErrors(io, problems);
  io.stdout.write(
    options.output === 'json'
      ? reportJson(report)
      : options.output === 'junit'
        ? reportJunit(report)
        : validLines(report),
  );
  context.exit(reportIsValid(report) ? EXIT_OK : EXIT_ERROR);
};

/**
 * Each input checked, with the problems about it: an Application; each resource of plain
 * manifests (and, named with --as-application, the Application they make); and the inputs that
 * could not be read, from the problems no checked input claims.
 */
const validationReport = (
  applications: ReadonlyArray<ApplicationInput>,
  problems: ReadonlyArray<CliError>,
): ValidationReport => {
  const claimed = new Set<CliError>();
  const take = (about: (error: CliError) => boolean): ReadonlyArray<CliError> => {
    const found = problems.filter((error) => !claimed.has(error) && about(error));
    for (const error of found) claimed.add(error);
    return found;
  };
  const checked = applications.flatMap((input) => checkedOf(input, take));
  const unclaimed = problems.filter((error) => !claimed.has(error));
  const failed = [
    ...new Set(
      unclaimed.flatMap((error) =>
        error.subject === undefined || error.location === undefined
          ? []
          : [inputKey(error.subject, error.location.file, error.location.document ?? 1)],
      ),
    ),
  ];
  const failing = failed.map((key) => {
    const [subject = '', file = '', document = '1'] = key.split('\u0000');
    return { subject, file, document: Number(document), errors: take((error) => errorKey(error) === key) };
  });
  return { inputs: [...checked, ...failing], other: problems.filter((error) => !claimed.has(error)) };
};

const inputKey = (subject: string, file: string, document: number): string =>
  `${subject}\u0000${file}\u0000${document}`;

const errorKey = (error: CliError): string | undefined =>
  error.subject === undefined || error.location === undefined
    ? undefined
    : inputKey(error.subject, error.location.file, error.location.document ?? 1);

const checkedOf = (
  input: ApplicationInput,
  take: (about: (error: CliError) => boolean) => ReadonlyArray<CliError>,
): ReadonlyArray<CheckedInput> => {
  const { application, origin, translated, plain } = input;
  const subject = subjectOf(application);
  const whole = {
    subject,
    file: origin.file,
    document: origin.document,
    ...(translated === undefined ? {} : { note: translationNote(application, translated.length) }),
    errors: take((error) => error.subject === subject),
  };
  if (plain === undefined) return [whole];
  const resources = plain.entries.map((entry, i) => {
    const key = inputKey(describeResource(entry.value), entry.origin.file, entry.origin.document);
    const own = take((error) => errorKey(error) === key);
    // Unnamed, the Application only carries its one resource: what is said of it is said of the resource.
    const carried = !plain.named && i === 0 ? whole.errors : [];
    return {
      subject: describeResource(entry.value),
      file: entry.origin.file,
      document: entry.origin.document,
      errors: [...carried, ...own],
    };
  });
  // Named, the Application is listed valid only when every resource is (its own errors are listed in any case).
  const wholeShown = whole.errors.length > 0 || resources.every((resource) => resource.errors.length === 0);
  return plain.named ? [...(wholeShown ? [whole] : []), ...resources] : resources;
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

const targetOf = (options: ValidateFlags): ClusterTarget | undefined =>
  options.kubeconfig === undefined && options.context === undefined
    ? undefined
    : {
        ...defined({ kubeconfigPath: options.kubeconfig, context: options.context }),
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
      .summary('check Applications, or plain manifests, as the API server would')
      .description(
        "Validates each Application offline: its fields (unknown ones refused, with the closest known name), its manifest (apiVersion, kind, metadata.name, no duplicates), its observer schemas (docs/behaviour.md §2), and each manifest resource against its kind's schema (unknown fields and kinds with the closest known name, types, enums, required fields): Kubernetes 1.36's built-in kinds offline, custom resources from the input's CRDs or --crd, and with --kubeconfig/--context the cluster's OpenAPI schemas. Also what the API server refuses beyond the schema (quantities, removed API versions, CronJob schedules, restart policies, selectors, container names and ports: docs/cli.md). Plain manifests (not in an Application) are checked each on its own, or as one Application with --as-application. Lists every valid input and reports every error with its path; plans nothing.",
      )
      .addOption(filenameOption('Application files, or plain manifests (each checked on its own)'))
      .addOption(asApplicationOption())
      .addOption(
        new Option(
          '-o, --output <format>',
          'text: valid inputs on stdout, errors on stderr; json: a ValidationReport; junit: JUnit XML for CI test reports',
        )
          .choices(['text', 'json', 'junit'])
          .default('text'),
      )
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
      .action(async (options: ValidateFlags) => execute(context, options)),
};
