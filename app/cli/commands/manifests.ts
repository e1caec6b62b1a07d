/** `kreconcile crd`, `kreconcile rbac` and `kreconcile deploy`: the manifests to install the operator. */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { stringify } from 'yaml';
import type { Resource } from '../../../core/index.js';
import { applicationCrd } from '../../manifests/crd.js';
import { defaultChildKinds, operatorDeployment, operatorRbac, shardingRbac, type ChildKind } from '../../manifests/rbac.js';
import { MAX_SHARDS } from '../../runtime/sharding/sharding.js';
import { usageError } from '../cli-error.js';
import { filenameOption, recursiveOption, reportErrors, type CliCommand, type CommandContext } from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { readManifestInputs } from '../input/manifest-inputs.js';

type Format = 'yaml' | 'json';

/** YAML documents separated by `---` (kubectl apply -f reads them), or one JSON List. */
export const renderManifests = (objects: ReadonlyArray<Resource>, format: Format): string =>
  format === 'json'
    ? `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`
    : objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n');

const outputOption = (): Option => new Option('-o, --output <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml');

const shardsOption = (): Option => new Option('--shards <n>', 'the operator runs with --sharding lease --shards n: add a Role for its shard Leases');

/** The sharding Role for `--shards n` (none without it); a bad count is reported and `left`. */
const shardingManifests = (context: CommandContext, namespace: string, shards: string | undefined): E.Either<true, ReadonlyArray<Resource>> => {
  if (shards === undefined) return E.right([]);
  const count = /^\d+$/.test(shards) ? Number(shards) : Number.NaN;
  if (count >= 1 && count <= MAX_SHARDS) return E.right(shardingRbac(namespace, count));
  reportErrors(context.io, [usageError(`--shards ${shards}: expected a whole number from 1 to ${MAX_SHARDS}`)]);
  return E.left(true);
};

/** Child kinds used by the Applications in `-f` files, or the defaults. */
const childKinds = async (context: CommandContext, filename: ReadonlyArray<string>, recursive = false): Promise<E.Either<true, ReadonlyArray<ChildKind>>> => {
  if (filename.length === 0) return E.right(defaultChildKinds);
  const inputs = await readManifestInputs(context.io, { filename, namespace: 'default', recursive });
  if (E.isLeft(inputs)) { reportErrors(context.io, inputs.left); return E.left(true); }
  const kinds = new Map<string, ChildKind>();
  for (const { application } of inputs.right.applications) {
    for (const resource of application.spec.manifest ?? []) kinds.set(`${resource.apiVersion}/${resource.kind}`, { apiVersion: resource.apiVersion, kind: resource.kind });
    // Hooks keep their tokens in a Secret per namespace (docs/hooks.md).
    if ((application.spec.hooks ?? []).length > 0) kinds.set('v1/Secret', { apiVersion: 'v1', kind: 'Secret' });
  }
  return E.right([...kinds.values()]);
};

export const crdCommand: CliCommand = {
  name: 'crd',
  create: (context) => new Command('crd')
    .summary('print the Application CustomResourceDefinition')
    .addOption(outputOption())
    .addHelpText('after', `\nExamples:\n  kreconcile crd | kubectl apply -f -\n\n${EXIT_CODES_HELP}\n`)
    .action((options: { output: Format }) => { context.io.stdout.write(renderManifests([applicationCrd()], options.output)); context.exit(EXIT_OK); }),
};

export const rbacCommand: CliCommand = {
  name: 'rbac',
  create: (context) => new Command('rbac')
    .summary('print the least-privilege RBAC the operator needs')
    .description('ServiceAccount, ClusterRole and ClusterRoleBinding: the Application API, Events, the leader Lease, and the child kinds of the given Applications (-f), or common web-app kinds.')
    .addOption(new Option('-n, --namespace <namespace>', 'namespace the operator runs in').default('kreconcile-system'))
    .addOption(filenameOption('Applications whose child kinds the operator must manage'))
    .addOption(recursiveOption())
    .addOption(outputOption())
    .addOption(shardsOption())
    .addHelpText('after', `\nExamples:\n  kreconcile rbac -f apps/ | kubectl apply -f -\n\n${EXIT_CODES_HELP}\n`)
    .action(async (options: { namespace: string; filename: ReadonlyArray<string>; recursive?: boolean; output: Format; shards?: string }) => {
      const kinds = await childKinds(context, options.filename, options.recursive);
      if (E.isLeft(kinds)) return context.exit(EXIT_ERROR);
      const sharding = shardingManifests(context, options.namespace, options.shards);
      if (E.isLeft(sharding)) return context.exit(EXIT_ERROR);
      context.io.stdout.write(renderManifests([...operatorRbac(options.namespace, kinds.right), ...sharding.right], options.output));
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
  create: (context) => new Command('deploy')
    .summary('print everything to deploy the operator: CRD, RBAC, Deployment and Service')
    .addOption(new Option('-n, --namespace <namespace>', 'namespace the operator runs in').default('kreconcile-system'))
    .addOption(new Option('--image <image>', 'operator image, built from the repository\'s Dockerfile and pushed where the cluster pulls from (docs/install.md)').default(defaultImage(context.io.version)))
    .addOption(filenameOption('Applications whose child kinds the operator must manage'))
    .addOption(recursiveOption())
    .addOption(outputOption())
    .addHelpText('after', `\nExamples:\n  docker build -t registry.example/kreconcile:${context.io.version} . && docker push registry.example/kreconcile:${context.io.version}\n  kreconcile deploy --image registry.example/kreconcile:${context.io.version} | kubectl apply -f -\n\n${EXIT_CODES_HELP}\n`)
    .action(async (options: { namespace: string; image: string; filename: ReadonlyArray<string>; recursive?: boolean; output: Format }) => {
      const kinds = await childKinds(context, options.filename, options.recursive);
      if (E.isLeft(kinds)) return context.exit(EXIT_ERROR);
      const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: options.namespace } } as Resource;
      context.io.stdout.write(renderManifests([namespace, applicationCrd(), ...operatorRbac(options.namespace, kinds.right), ...operatorDeployment(options.namespace, options.image)], options.output));
      context.exit(EXIT_OK);
    }),
};
