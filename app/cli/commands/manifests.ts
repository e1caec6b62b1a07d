/** `kreconcile crd`, `kreconcile rbac` and `kreconcile deploy`: the manifests to install the operator. */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { stringify } from 'yaml';
import type { Resource } from '../../../core/internal.js';
import { approvalManifests } from '../../manifests/approvals.js';
import { GARBAGE_COLLECTOR_USERS, garbageCollectionManifests } from '../../manifests/garbage-collection.js';
import { applicationCrd } from '../../manifests/crd.js';
import { declaredRbac, rbacGrants, type DeclaredRbac } from '../../manifests/rbac-grants.js';
import {
  SECRET_KIND,
  operatorDeployment,
  operatorRbac,
  runFlagsFor,
  shardingRbac,
  type ChildKind,
  type RbacOptions,
} from '../../manifests/rbac.js';
import { MAX_SHARDS } from '../../runtime/sharding/sharding.js';
import { wholeNumber } from '../numeric-flags.js';
import {
  collect,
  filenameOption,
  recursiveOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { decodeRbacFlags, type RbacFlags, type RbacRequest } from './rbac-options.js';
import { desiredManifest } from '../input/applications.js';
import { readManifestInputs } from '../input/manifest-inputs.js';
import { defined } from '../../../core/json/defined.js';

type Format = 'yaml' | 'json';

/** YAML documents separated by `---` (kubectl apply -f reads them), or one JSON List. */
export const renderManifests = (objects: ReadonlyArray<Resource>, format: Format): string =>
  format === 'json'
    ? `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`
    : objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n');

const outputOption = (): Option =>
  new Option('-o, --output <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml');

const shardsOption = (): Option =>
  new Option(
    '--shards <n>',
    'the operator runs with --sharding lease --shards n: add a Role for its shard Leases',
  ).argParser(wholeNumber(1, MAX_SHARDS));

/** The admission policies both commands print: approvals (0026) and the garbage collector's refusal (0029). */
const admissionManifests = (request: RbacRequest): ReadonlyArray<Resource> => [
  ...approvalManifests(),
  ...garbageCollectionManifests(request.garbageCollectorUsers),
];

/**
 * Child kinds used by the Applications in `-f` files (tenant input: only with the explicit flag),
 * and the RBAC objects they ship, whose rights the operator must hold to write them.
 */
const kindsOfApplications = async (
  context: CommandContext,
  filename: ReadonlyArray<string>,
  recursive = false,
): Promise<
  E.Either<true, { readonly kinds: ReadonlyArray<ChildKind>; readonly rbac: ReadonlyArray<DeclaredRbac> }>
> => {
  const inputs = await readManifestInputs(context.io, { filename, namespace: 'default', recursive });
  if (E.isLeft(inputs)) {
    reportErrors(context.io, inputs.left);
    return E.left(true);
  }
  const kinds = new Map<string, ChildKind>();
  for (const input of inputs.right.applications) {
    const { application } = input;
    for (const resource of desiredManifest(input))
      kinds.set(`${resource.apiVersion}/${resource.kind}`, { apiVersion: resource.apiVersion, kind: resource.kind });
    // Hooks keep their tokens in a Secret per namespace (docs/hooks.md).
    if ((application.spec.hooks ?? []).length > 0) kinds.set('v1/Secret', SECRET_KIND);
  }
  const rbac = inputs.right.applications.flatMap((input) =>
    declaredRbac(desiredManifest(input), input.application.metadata.namespace ?? 'default'),
  );
  return E.right({ kinds: [...kinds.values()], rbac });
};

/** The admin's RBAC choice, with the kinds of the `-f` Applications; `left` means "reported, exit 1". */
const rbacChoice = async (
  context: CommandContext,
  request: RbacRequest,
): Promise<E.Either<true, RbacOptions & { readonly defaultServiceAccount?: string }>> => {
  const derived =
    request.applicationFiles.length > 0
      ? await kindsOfApplications(context, request.applicationFiles, request.recursive)
      : E.right({ kinds: [], rbac: [] });
  if (E.isLeft(derived)) return derived;
  const kinds = [...request.childKinds, ...derived.right.kinds];
  const grants = rbacGrants(derived.right.rbac);
  for (const role of grants.wildcards)
    context.io.stderr.write(
      `warning: ${role} grants a wildcard (*): the operator must hold it to write it, which makes it as powerful: narrow the role, or apply it yourself and leave it out of the Application\n`,
    );
  return E.right({
    namespace: request.namespace,
    impersonation: request.impersonation,
    ...(kinds.length === 0 ? {} : { childKinds: kinds }),
    ...(derived.right.rbac.length === 0 ? {} : { rbacGrants: grants }),
    ...(request.tenantNamespaces.length === 0 ? {} : { tenantNamespaces: request.tenantNamespaces }),
    ...defined({ defaultServiceAccount: request.defaultServiceAccount }),
  });
};

/** The flags decoded, then the admin's choice; every problem is reported, `left` means "exit 1". */
const decidedRbac = async (
  context: CommandContext,
  flags: RbacFlags,
): Promise<E.Either<true, { readonly request: RbacRequest; readonly options: RbacOptions }>> => {
  const request = decodeRbacFlags(flags);
  if (E.isLeft(request)) {
    reportErrors(context.io, request.left);
    return E.left(true);
  }
  const options = await rbacChoice(context, request.right);
  return E.map((chosen: RbacOptions) => ({ request: request.right, options: chosen }))(options);
};

/** The options `rbac` and `deploy` share: who may do what, chosen by the admin. */
const withRbacOptions = (command: Command): Command =>
  command
    .addOption(new Option('-n, --namespace <namespace>', 'namespace the operator runs in').default('kreconcile-system'))
    .addOption(
      new Option(
        '--tenant-namespace <namespace>',
        'bind child rights (and impersonation) in this namespace only, instead of cluster-wide; repeatable',
      )
        .argParser(collect)
        .default([], 'cluster-wide'),
    )
    .addOption(
      new Option(
        '--child-kind <apiVersion/Kind>',
        'a kind the operator may write with its own rights, e.g. apps/v1/Deployment; repeatable',
      )
        .argParser(collect)
        .default([], 'common web-app kinds, Secrets only per tenant namespace'),
    )
    .addOption(
      new Option(
        '--impersonation <mode>',
        'off; allowed (may impersonate ServiceAccounts, for spec.serviceAccountName); required (ONLY that: no child rights)',
      )
        .choices(['off', 'allowed', 'required'])
        .default('off'),
    )
    .addOption(
      filenameOption('Application files to derive child kinds from (tenant input: needs --kinds-from-applications)'),
    )
    .addOption(recursiveOption())
    .addOption(new Option('--kinds-from-applications', "confirm that -f may decide the operator's rights"))
    .addOption(
      new Option(
        '--garbage-collector-user <user>',
        "the user kube-controller-manager's garbage collector deletes as, refused deleting Applications' children; repeatable",
      )
        .argParser(collect)
        .default([], GARBAGE_COLLECTOR_USERS.join(', ')),
    )
    .addOption(outputOption());

const RBAC_MODEL = `
The model (least privilege; the admin chooses, Application files never decide unless asked):
  - its own API everywhere: Applications, their status and finalizers, Events (ClusterRole kreconcile);
  - the leader Lease only in its own namespace, by name (Role kreconcile-leader-election);
  - child rights (ClusterRole kreconcile-children): cluster-wide, or with --tenant-namespace a
    RoleBinding in each named namespace only; no Secrets cluster-wide unless --child-kind v1/Secret;
    never RBAC objects, Namespaces or other cluster-scoped kinds unless named with --child-kind;
  - Applications (-f) that ship Roles, ClusterRoles and bindings: the operator holds exactly the
    rules of the roles they declare (ClusterRole/Role kreconcile-rbac-grants), "bind" only by name
    for the roles their bindings reference without declaring, "escalate" only for an aggregated
    ClusterRole (docs/security.md, "Applications that ship RBAC");
  - --impersonation required: no child rights at all, only "impersonate serviceaccounts": every
    Application is applied as its ServiceAccount (spec.serviceAccountName, or the operator's
    --default-service-account), so the API server enforces the tenant's own RBAC.
  - approvals (ClusterRole kreconcile-approver, ValidatingAdmissionPolicy kreconcile-approvals and
    its binding): setting kreconcile.io/approve takes the verb "approve" on applications.kreconcile.io,
    which editing an Application does not give (docs/decisions/0026); bind kreconcile-approver to
    the platform team only. The operator reads these policies at start (get, list): without the
    approvals policy it accepts no approval.
  - ValidatingAdmissionPolicy kreconcile-garbage-collection and its binding: the garbage collector
    (kubectl delete --cascade=foreground) may not delete an Application's children; its operator
    deletes them, under the guard policy and kreconcile.io/prune (docs/decisions/0029).
`;

export const crdCommand: CliCommand = {
  name: 'crd',
  create: (context) =>
    new Command('crd')
      .summary('print the Application CustomResourceDefinition')
      .addOption(outputOption())
      .addHelpText('after', `\nExamples:\n  kreconcile crd | kubectl apply -f -\n\n${EXIT_CODES_HELP}\n`)
      .action((options: { output: Format }) => {
        context.io.stdout.write(renderManifests([applicationCrd()], options.output));
        context.exit(EXIT_OK);
      }),
};

export const rbacCommand: CliCommand = {
  name: 'rbac',
  create: (context) =>
    withRbacOptions(
      new Command('rbac')
        .summary('print the least-privilege RBAC the operator needs')
        .description(
          'ServiceAccount, Roles and bindings for the operator: its own API, Events, the leader Lease, and the child rights (or impersonation rights) the admin chooses.',
        ),
    )
      .addHelpText(
        'after',
        `${RBAC_MODEL}\nExamples:\n  kreconcile rbac --tenant-namespace team-a --tenant-namespace team-a-db | kubectl apply -f -\n  kreconcile rbac --impersonation required | kubectl apply -f -   # then: kreconcile run --require-service-account\n\n${EXIT_CODES_HELP}\n`,
      )
      .addOption(shardsOption())
      .action(async (flags: RbacFlags) => {
        const choice = await decidedRbac(context, flags);
        if (E.isLeft(choice)) return context.exit(EXIT_ERROR);
        const { request, options } = choice.right;
        const sharding = request.shards === undefined ? [] : shardingRbac(request.namespace, request.shards);
        context.io.stdout.write(
          renderManifests([...operatorRbac(options), ...sharding, ...admissionManifests(request)], request.output),
        );
        context.exit(EXIT_OK);
      }),
};

/**
 * The image `docker build -t kreconcile:<version> .` names: nothing is published under another
 * name, so the default is what docs/install.md has users build (and push, or load into kind).
 */
export const defaultImage = (version: string): string => `kreconcile:${version}`;

export const deployCommand: CliCommand = {
  name: 'deploy',
  create: (context) =>
    withRbacOptions(
      new Command('deploy')
        .summary('print everything to deploy the operator: CRD, RBAC, Deployment and Service')
        .addOption(
          new Option(
            '--image <image>',
            "operator image, built from the repository's Dockerfile and pushed where the cluster pulls from (docs/install.md)",
          ).default(defaultImage(context.io.version)),
        )
        .addOption(
          new Option(
            '--default-service-account <name>',
            "the operator acts as this ServiceAccount of each Application's namespace when the spec names none",
          ),
        ),
    )
      .addHelpText(
        'after',
        `${RBAC_MODEL}\nExamples:\n  docker build -t registry.example/kreconcile:${context.io.version} . && docker push registry.example/kreconcile:${context.io.version}\n  kreconcile deploy --image registry.example/kreconcile:${context.io.version} | kubectl apply -f -\n  kreconcile deploy --impersonation required --default-service-account kreconcile-tenant | kubectl apply -f -\n\n${EXIT_CODES_HELP}\n`,
      )
      .action(async (flags: RbacFlags & { image: string }) => {
        const choice = await decidedRbac(context, flags);
        if (E.isLeft(choice)) return context.exit(EXIT_ERROR);
        const { request, options } = choice.right;
        const namespace: Resource = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: request.namespace } };
        context.io.stdout.write(
          renderManifests(
            [
              namespace,
              applicationCrd(),
              ...operatorRbac(options),
              ...admissionManifests(request),
              ...operatorDeployment(request.namespace, flags.image, runFlagsFor(options)),
            ],
            request.output,
          ),
        );
        context.exit(EXIT_OK);
      }),
};
