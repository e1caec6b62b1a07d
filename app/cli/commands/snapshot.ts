/**
 * `kreconcile snapshot`: records, read-only, the live objects Applications own or would touch,
 * as a `List` that `kreconcile plan --snapshot` reads later (offline, e.g. in CI).
 */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { withDigests } from '../../../core/internal.js';
import { usageError, type CliError } from '../cli-error.js';
import {
  contextOption,
  filenameOption,
  recursiveOption,
  kubeconfigOption,
  READ_ONLY,
  namespaceOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import {
  allowToscaFetchOption,
  toscaAccessOf,
  toscaAllowHostOption,
  toscaAllowHttpOption,
  toscaFileRootOption,
  type ToscaAccess,
  type ToscaFlags,
} from '../input/tosca.js';
import type { ClusterTarget } from '../io.js';
import { readLive } from '../planning/cluster-view.js';
import { readPolicy } from '../policy/read-policy.js';
import { serialize, type DataFormat } from '../render/serialize.js';
import { defined } from '../../../core/json/defined.js';

/** The flags as commander gives them. */
export type SnapshotFlags = ToscaFlags & {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace: string;
  readonly output: DataFormat;
  readonly includeSecretValues?: boolean;
  readonly policy?: string;
};

const EXAMPLES = `
Examples:
  # Record what the shop Application owns or would touch, then plan offline
  kreconcile snapshot -f app.yaml --context prod > live.yaml
  kreconcile plan -f app.yaml --snapshot live.yaml

  kreconcile snapshot -f app.yaml --kubeconfig ~/.kube/staging -o json > live.json

Recorded, with get and list only: the Application itself (its status), every resource of its
manifest the tenancy policy (--policy, as the operator's; default: own namespace only) lets it
write, in any namespace and cluster-scoped ones too, every object of the kinds involved (the
manifest's, the status's and those of the inventory kreconcile apply keeps) labelled
app.kubernetes.io/managed-by=kreconcile and annotated kreconcile.io/owner=<namespace>/<name>, and
the CustomResourceDefinitions of the custom kinds it uses. Secret values are recorded as digests (sha256:<hex> of the bytes) unless
--include-secret-values is given: kreconcile plan --snapshot still sees which values differ.

${EXIT_CODES_HELP}
`;

/** The flags decoded: the TOSCA access they allow and the cluster they name. */
export type SnapshotRequest = SnapshotFlags & { readonly tosca: ToscaAccess; readonly target: ClusterTarget };

/** A pure decoding of the flags, tested on its own (issue 40 item 2): every usage problem at once. */
export const decodeSnapshotFlags = (flags: SnapshotFlags): E.Either<ReadonlyArray<CliError>, SnapshotRequest> => {
  const tosca = toscaAccessOf(flags);
  const problems = [
    ...(flags.filename.length === 0
      ? ['name the Applications to record with -f app.yaml (see kreconcile snapshot --help)']
      : []),
    ...(E.isLeft(tosca) ? [tosca.left] : []),
  ];
  if (problems.length > 0 || E.isLeft(tosca)) return E.left(problems.map((problem) => usageError(problem)));
  const target = defined({ kubeconfigPath: flags.kubeconfig, context: flags.context });
  return E.right({ ...flags, tosca: tosca.right, target });
};

const execute = async (context: CommandContext, flags: SnapshotFlags): Promise<void> => {
  const { io } = context;
  const fail = (errors: ReadonlyArray<CliError>): void => {
    reportErrors(io, errors);
    context.exit(EXIT_ERROR);
  };
  const request = decodeSnapshotFlags(flags);
  if (E.isLeft(request)) return fail(request.left);
  const options = request.right;
  const inputs = await readManifestInputs(io, options);
  if (E.isLeft(inputs)) return fail(inputs.left);
  const tenancy = options.policy === undefined ? E.right(undefined) : await readPolicy(io, options.policy);
  if (E.isLeft(tenancy)) return fail(tenancy.left);
  const objects = await readLive(io, options.target, inputs.right.applications, inputs.right.crds, tenancy.right);
  if (E.isLeft(objects)) return fail([objects.left]);
  // The shape of `kubectl get -o yaml` output, so both tools' recordings read the same way.
  // Secret values stay out of recordings (CI logs, artifacts) unless asked for: digests still let plans see changes.
  const items =
    options.includeSecretValues === true ? objects.right : objects.right.map((object) => withDigests(object));
  io.stdout.write(
    serialize({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items }, options.output),
  );
  context.exit(EXIT_OK);
};

export const snapshotCommand: CliCommand = {
  name: 'snapshot',
  create: (context) =>
    new Command('snapshot')
      .summary('record the live objects of Applications for offline plans')
      .description(
        'Reads (never writes) the live objects the given Applications own or would touch and prints them as a List, for kreconcile plan --snapshot. Without --kubeconfig/--context the default kubeconfig and its current context are used.',
      )
      .addOption(filenameOption('Application file(s); CustomResourceDefinitions in them declare custom kinds'))
      .addOption(recursiveOption())
      .addOption(kubeconfigOption(READ_ONLY))
      .addOption(contextOption())
      .addOption(namespaceOption())
      .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
      .addOption(
        new Option(
          '--policy <file>',
          "the admin's tenancy policy (as plan --policy): the objects it lets an Application write are recorded, in any namespace; default: own namespace only",
        ),
      )
      .addOption(
        new Option(
          '--include-secret-values',
          'record Secret data/stringData values (default: each value is replaced by its digest, sha256:<hex>)',
        ),
      )
      .addOption(allowToscaFetchOption())
      .addOption(toscaFileRootOption())
      .addOption(toscaAllowHttpOption())
      .addOption(toscaAllowHostOption())
      .addHelpText('after', EXAMPLES)
      .action(async (options: SnapshotFlags) => execute(context, options)),
};
