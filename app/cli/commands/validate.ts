/** `kreconcile validate`: checks Applications (spec, manifest, observer schemas) without planning. */
import { Command } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { usageError } from '../cli-error.js';
import { filenameOption, recursiveOption, namespaceOption, reportErrors, type CliCommand, type CommandContext } from '../command.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { subjectOf } from '../input/applications.js';
import { readManifestInputs } from '../input/manifest-inputs.js';

type Options = { readonly filename: ReadonlyArray<string>; readonly recursive?: boolean; readonly namespace: string };

const EXAMPLES = `
Examples:
  kreconcile validate -f app.yaml
  kreconcile validate -f apps/shop.yaml -f apps/blog.yaml
  helm template ./chart | kreconcile validate -f -

Every problem is reported on its own line: file:line:column, document, JSON path, what is
wrong and what to do, e.g.
  error: app.yaml:14:9: document 1 (Application shop/web): spec.observerSchema[0].spec.replicas: observed fields must be null, got 3: write null to observe this field

${EXIT_CODES_HELP}
`;

const execute = async (context: CommandContext, options: Options): Promise<void> => {
  const { io } = context;
  if (options.filename.length === 0) {
    reportErrors(io, [usageError('name the Applications to validate with -f app.yaml (see kreconcile validate --help)')]);
    return context.exit(EXIT_ERROR);
  }
  const inputs = await readManifestInputs(io, options);
  if (E.isLeft(inputs)) {
    reportErrors(io, inputs.left);
    return context.exit(EXIT_ERROR);
  }
  for (const { application, origin } of inputs.right.applications) {
    io.stdout.write(`${subjectOf(application)} (${origin.file}, document ${origin.document}): valid\n`);
  }
  context.exit(EXIT_OK);
};

export const validateCommand: CliCommand = {
  name: 'validate',
  create: (context) => new Command('validate')
    .summary('check Applications and their observer schemas')
    .description('Validates each Application offline: its shape, its manifest (apiVersion, kind, metadata.name, no duplicates) and its observer schemas (SPEC section 2). Reports every error with its path; plans nothing.')
    .addOption(filenameOption('Application file(s)'))
    .addOption(recursiveOption())
    .addOption(namespaceOption())
    .addHelpText('after', EXAMPLES)
    .action(async (options: Options) => execute(context, options)),
};
