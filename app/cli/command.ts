/**
 * What a command module provides, and the option helpers commands share. Commands live one per
 * file under `commands/` and are registered in `commands/index.ts`; `main.ts` wires them.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { showCliError, type CliError } from './cli-error.js';
import type { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

export type CommandContext = {
  readonly io: CliIo;
  /** Records the exit code the command ends with (the last call wins). */
  readonly exit: (code: ExitCode) => void;
};

export type CliCommand = {
  readonly name: string;
  /** A fresh commander `Command` (one per run: commander keeps parse state in it). */
  readonly create: (context: CommandContext) => Command;
};

/** Accumulates a repeatable option (`-f a.yaml -f b.yaml`). */
export const collect = (value: string, previous: ReadonlyArray<string>): ReadonlyArray<string> => [...previous, value];

export const filenameOption = (what: string): Option =>
  new Option(
    '-f, --filename <file>',
    `${what} (YAML or JSON, several documents per file; a directory: its .yaml, .yml and .json files; - reads stdin); repeatable`,
  )
    .argParser(collect)
    .default([], 'none');

/** `-R`, kubectl's: directories named with `-f` are read with their subdirectories. */
/**
 * `--as-application NAME`: the documents that are not Applications are one Application's manifest
 * (input/plain-manifests.ts).
 */
export const asApplicationOption = (): Option =>
  new Option(
    '--as-application <name>',
    'read the -f documents that are not Applications (plain manifests: a directory, kustomize build or helm template output) as the manifest of one Application of this name, in --namespace',
  );

export const recursiveOption = (): Option =>
  new Option('-R, --recursive', 'read the subdirectories of -f directories too');

export const namespaceOption = (): Option =>
  new Option('-n, --namespace <namespace>', 'namespace of Applications that do not set metadata.namespace').default(
    'default',
  );

/** `--kubeconfig`; `note` says what the command does with the cluster (e.g. that it only reads). */
export const kubeconfigOption = (note = ''): Option =>
  new Option('--kubeconfig <path>', `kubeconfig file of the cluster${note}`);

export const contextOption = (): Option =>
  new Option('--context <name>', 'kubeconfig context of the cluster (default: its current context)');

/** `-o` of the plan commands (`plan`, `fleet-plan`): text, json, yaml, markdown for a pull request. */
export const planOutputOption = (): Option =>
  new Option('-o, --output <format>', 'output format (markdown: a pull request comment)')
    .choices(['text', 'json', 'yaml', 'markdown'])
    .default('text');

export const READ_ONLY = ' (only read, with get and list: a read-only account is enough)';

/** Writes every error as one line on stderr. */
export const reportErrors = (io: CliIo, errors: ReadonlyArray<CliError>): void => {
  for (const error of errors) io.stderr.write(`${showCliError(error)}\n`);
};
