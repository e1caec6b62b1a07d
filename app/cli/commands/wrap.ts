/**
 * `kreconcile wrap NAME -f manifests/`: writes the Application whose manifest is the given plain
 * manifests (a directory, `kustomize build` or `helm template` output on stdin), for GitOps: the
 * same Application `plan --as-application NAME` plans, so nobody re-indents a manifest by hand
 * (docs/cli.md, "Plain manifests").
 */
import { Command, Option } from 'commander';
import { usageError } from '../cli-error.js';
import {
  filenameOption,
  namespaceOption,
  recursiveOption,
  reportErrors,
  type CliCommand,
  type CommandContext,
} from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { placedErrors, readApplications, specErrors } from '../input/applications.js';
import { expandDirectories } from '../input/directories.js';
import { errorAt } from '../input/entries.js';
import { isApplication } from '../input/kinds.js';
import { inInputOrder, loadEntries } from '../input/load.js';
import { scopesFor } from '../input/scopes.js';
import { serialize } from '../render/serialize.js';

type Options = {
  readonly filename: ReadonlyArray<string>;
  readonly recursive?: boolean;
  readonly namespace: string;
  readonly output: 'yaml' | 'json';
};

const EXAMPLES = `
Examples:
  kreconcile wrap shop -f manifests/ -n shop > apps/shop.yaml
  kustomize build overlays/prod | kreconcile wrap shop -f - -n shop > apps/shop.yaml
  helm template web ./chart -n shop | kreconcile wrap web -f - -n shop > apps/web.yaml

Every document that is not empty becomes one entry of spec.manifest, in input order (a List's
items one by one; CustomResourceDefinitions too). The Application is checked as plan and validate
check it (names, duplicates, no __proto__ keys) and nothing is written when it is not valid: one
line per problem, at the document's file:line. kreconcile plan -f DIR --as-application NAME plans
the same Application without writing it.

${EXIT_CODES_HELP}
`;

const execute = async (context: CommandContext, name: string, options: Options): Promise<void> => {
  const { io } = context;
  if (options.filename.length === 0) {
    reportErrors(io, [usageError('name the manifests to wrap with -f DIR or -f - (see kreconcile wrap --help)')]);
    return context.exit(EXIT_ERROR);
  }
  const expanded = await expandDirectories(io, options.filename, options.recursive === true);
  const loaded = await loadEntries(io, expanded.files);
  const applications = loaded.entries.filter(({ value }) => isApplication(value));
  const read = readApplications(
    loaded.entries.filter(({ value }) => !isApplication(value)),
    options.namespace,
    { mode: 'application', name },
  );
  const wrapped = read.applications[0];
  const found = inInputOrder(
    [
      ...expanded.errors,
      ...loaded.errors,
      ...applications.map(({ origin }) =>
        errorAt(origin, 'kind', 'this is an Application already: wrap reads plain manifests only (leave it out of -f)'),
      ),
      ...read.errors,
      ...placedErrors(specErrors(read.applications, scopesFor(read.crds, [])), read.applications),
    ],
    expanded.files,
  );
  const problems =
    found.length === 0 && wrapped === undefined
      ? [usageError(`no manifest in ${options.filename.join(', ')}: nothing to wrap`)]
      : found;
  if (problems.length > 0 || wrapped === undefined) {
    reportErrors(io, problems);
    return context.exit(EXIT_ERROR);
  }
  // The documents as written (not as decoded): what the user reviews is what they gave.
  const manifest = (wrapped.plain?.entries ?? []).map(({ value }) => value);
  const { apiVersion, kind } = wrapped.application;
  io.stdout.write(
    serialize(
      { apiVersion, kind, metadata: { name, namespace: options.namespace }, spec: { manifest } },
      options.output,
    ),
  );
  context.exit(EXIT_OK);
};

export const wrapCommand: CliCommand = {
  name: 'wrap',
  create: (context) =>
    new Command('wrap')
      .summary('write plain manifests as one Application, for GitOps')
      .description(
        'Reads plain manifests (files, a directory, or stdin: kustomize build, helm template) and prints the Application NAME whose spec.manifest holds them, in input order, as plan --as-application NAME reads them. Nothing is re-indented by hand; nothing is written when the Application would not be valid.',
      )
      .argument('<name>', 'the Application name (metadata.name)')
      .addOption(filenameOption('plain manifests to wrap'))
      .addOption(recursiveOption())
      .addOption(namespaceOption())
      .addOption(new Option('-o, --output <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml'))
      .addHelpText('after', EXAMPLES)
      .action(async (name: string, options: Options) => execute(context, name, options)),
};
