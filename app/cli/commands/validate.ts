/**
 * `kreconcile validate`: checks Applications (fields, manifest, observer schemas) without
 * planning; with `--kubeconfig`/`--context`, also their manifests against the cluster's OpenAPI schemas.
 */
import { Command } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { openApiIssues, type Application } from '../../../core/index.js';
import { clusterFailure, usageError, type CliError } from '../cli-error.js';
import {
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
import { errorAt } from '../input/entries.js';
import { inInputOrder } from '../input/load.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaFlags,
} from '../input/tosca.js';
import type { ClusterTarget, CliIo } from '../io.js';

type Options = ToscaFlags & {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly namespace: string;
  readonly kubeconfig?: string;
  readonly context?: string;
};

const EXAMPLES = `
Examples:
  kreconcile validate -f app.yaml
  kreconcile validate -f apps/shop.yaml -f apps/blog.yaml
  helm template ./chart | kreconcile validate -f -
  kreconcile validate -f app.yaml --kubeconfig ~/.kube/config   # also against the cluster's schemas

Every problem is reported on its own line: file:line:column, document, JSON path, what is
wrong and what to do, e.g.
  error: app.yaml:14:9: document 1 (Application shop/web): spec.observerSchema[0].spec.replicas: observed fields are marked true (or null), got 3: write true to observe this field
  error: app.yaml:9:3: document 1 (Application shop/web): spec.observerSchemas: unknown field (the API server would refuse or drop it): did you mean \`observerSchema\`?

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
  const target = targetOf(options);
  const live = target === undefined ? [] : await clusterSchemaErrors(io, target, inputs.right.applications);
  if (live.length > 0) {
    reportErrors(io, inInputOrder(live, options.filename));
    return context.exit(EXIT_ERROR);
  }
  for (const { application, origin, translated } of inputs.right.applications) {
    io.stdout.write(
      `${subjectOf(application)} (${origin.file}, document ${origin.document}): valid${translated === undefined ? '' : translationNote(application, translated.length)}\n`,
    );
  }
  context.exit(EXIT_OK);
};

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

/** Every manifest resource checked against the cluster's OpenAPI v3 schema of its kind; the cluster failing is one error. */
const clusterSchemaErrors = async (
  io: CliIo,
  target: ClusterTarget,
  applications: ReadonlyArray<ApplicationInput>,
): Promise<ReadonlyArray<CliError>> => {
  if (io.fetchOpenApi === undefined)
    return [
      clusterFailure('this kreconcile cannot read cluster schemas: validate offline (without --kubeconfig/--context)'),
    ];
  const apiVersions = applications.flatMap((input) => desiredManifest(input).map((resource) => resource.apiVersion));
  const fetched = await io.fetchOpenApi(target, apiVersions).then(
    (documents) => E.right(documents),
    (error: unknown) => E.left(error instanceof Error ? error.message : String(error)),
  );
  if (E.isLeft(fetched)) return [clusterFailure(fetched.left)];
  return applications.flatMap((input) =>
    openApiIssues({ manifest: desiredManifest(input), documents: fetched.right }).map((issue) =>
      errorAt(input.origin, issue.path, issue.message, subjectOf(input.application)),
    ),
  );
};

export const validateCommand: CliCommand = {
  name: 'validate',
  create: (context) =>
    new Command('validate')
      .summary('check Applications and their observer schemas')
      .description(
        "Validates each Application offline: its fields (unknown ones refused, with the closest known name), its manifest (apiVersion, kind, metadata.name, no duplicates) and its observer schemas (SPEC section 2). With --kubeconfig/--context, also each manifest resource against the cluster's OpenAPI schema of its kind (unknown fields, types, enums, required fields). Reports every error with its path; plans nothing.",
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
      .addHelpText('after', EXAMPLES)
      .action(async (options: Options) => execute(context, options)),
};
