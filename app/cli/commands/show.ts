/** `kreconcile show plan.json`: a saved plan rendered as `kreconcile plan` renders a plan. */
import { Command, Option } from 'commander';
import * as E from 'fp-ts/lib/Either.js';
import { reportErrors, type CliCommand, type CommandContext } from '../command.js';
import { EXIT_ERROR, EXIT_OK } from '../exit-codes.js';
import { planDocument } from '../render/plan-document.js';
import { serialize } from '../render/serialize.js';
import { styleFor } from '../style.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import type { SavedPlanV1 } from '../saved-plan/format.js';
import { readSavedPlan } from '../saved-plan/read.js';
import { plannedOf } from '../saved-plan/replay.js';

type Options = { readonly output: 'text' | 'json' | 'yaml' | 'markdown' };

const basisOf = (saved: SavedPlanV1): string => {
  const { cluster } = saved.metadata;
  switch (cluster.type) {
    case 'Empty':
      return 'an empty cluster';
    case 'Snapshot':
      return `the snapshot ${cluster.files.join(', ')}`;
    case 'Live':
      return `the live cluster${cluster.context === undefined ? '' : ` (context ${cluster.context})`}`;
  }
};

/** The header of the text form: what the file is and what it was computed against. */
export const savedPlanHeader = (path: string, saved: SavedPlanV1): string =>
  `Saved plan ${path}: made ${saved.metadata.createdAt} by kreconcile ${saved.metadata.kreconcileVersion} against ${basisOf(saved)}${saved.metadata.secretValues ? '; it holds Secret values' : ''}.\n${guardLines(saved)}\n`;

/** What an approval (`kreconcile.io/approve`) names: each Application's plan digest, and the guard file checked. */
const guardLines = (saved: SavedPlanV1): string =>
  [
    ...(saved.metadata.guard === undefined
      ? []
      : [`Checked against the guard file ${saved.metadata.guard.file} (${saved.metadata.guard.digest}).`]),
    ...saved.applications.flatMap(({ application, digest }) =>
      digest === undefined
        ? []
        : [`Plan digest of Application ${application.namespace ?? 'default'}/${application.name}: ${digest}`],
    ),
  ]
    .map((line) => `${line}\n`)
    .join('');

const execute = async (context: CommandContext, path: string, options: Options): Promise<void> => {
  const { io } = context;
  const saved = await readSavedPlan(io, path);
  if (E.isLeft(saved)) {
    reportErrors(io, saved.left);
    return context.exit(EXIT_ERROR);
  }
  const planned = plannedOf(saved.right.applications);
  io.stdout.write(
    options.output === 'text'
      ? savedPlanHeader(path, saved.right) + renderText(planned, styleFor(io))
      : options.output === 'markdown'
        ? renderMarkdown(planned)
        : serialize(
            planDocument(planned, { now: saved.right.metadata.createdAt, cluster: saved.right.metadata.cluster }),
            options.output,
          ),
  );
  context.exit(EXIT_OK);
};

export const showCommand: CliCommand = {
  name: 'show',
  create: (context) =>
    new Command('show')
      .summary('render a saved plan (kreconcile plan --out) like kreconcile plan does')
      .description(
        'Renders a plan saved by kreconcile plan --out: text, or the machine-readable plan (kreconcile.io/plan/v1; its status holds the conditions only). Reads no cluster.',
      )
      .argument('<plan>', 'the saved plan file (- reads stdin)')
      .addOption(
        new Option('-o, --output <format>', 'output format (markdown: a pull request comment)')
          .choices(['text', 'json', 'yaml', 'markdown'])
          .default('text'),
      )
      .action(async (path: string, options: Options) => execute(context, path, options)),
};
