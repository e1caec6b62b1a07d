/**
 * `run(argv, io)`: the whole CLI as a function of its arguments and an injected process (io), so
 * tests run it in-process. Parses with commander, dispatches to the registered commands and turns
 * every outcome into an exit code; nothing here touches `process`.
 */
import { Command, CommanderError } from 'commander';
import type { CliCommand } from './command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT_CODES_HELP, EXIT_ERROR, EXIT_OK, type ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

const HELP = `
Commands that take a cluster use --kubeconfig/--context; plan and snapshot only ever read from it,
apply writes exactly what a saved plan says, run is the operator.
Run kreconcile <command> --help for a command's options and examples; docs/cli.md has them all.

${EXIT_CODES_HELP}
  2  kreconcile plan --exit-code only: the plan would change something
`;

const program = (io: CliIo): Command =>
  new Command('kreconcile')
    .description('Plans and runs Kubernetes Applications reconciled by kreconcile (Krake-compatible observer schemas).')
    .version(io.version, '-V, --version', 'print the version')
    // A program option: recognised before or after the command name (kreconcile plan --no-color …).
    .option('--no-color', 'no colours in the output (as NO_COLOR=1; colours are only ever used on a terminal)')
    .addHelpText('after', HELP)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // commander's own errors (unknown option, bad choice) as one line, like every other error.
      outputError: (text, write) => write(`${text.trimEnd().replace(/\s*\n\s*/g, ' ')} (see --help)\n`),
    });

/**
 * Runs the CLI on `argv` (the arguments after the program name).
 * Guarantees: resolves to an exit code, never rejects; every error is reported as one line on
 * stderr (a defect too, with its stack only when KRECONCILE_DEBUG is set).
 */
export const run = async (
  argv: ReadonlyArray<string>,
  io: CliIo,
  commands: ReadonlyArray<CliCommand> = COMMANDS,
): Promise<ExitCode> => {
  let code: ExitCode = EXIT_OK;
  const root = program(io);
  // --no-color is NO_COLOR=1 for this run: every colour decision (app/cli/style.ts) reads NO_COLOR.
  let active = io;
  root.hook('preAction', () => {
    if (root.opts<{ color?: boolean }>().color === false) active = { ...io, env: { ...io.env, NO_COLOR: '1' } };
  });
  const context = {
    get io(): CliIo {
      return active;
    },
    exit: (chosen: ExitCode): void => {
      code = chosen;
    },
  };
  try {
    for (const command of commands) root.addCommand(command.create(context).copyInheritedSettings(root));
    await root.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_ERROR;
    const detail = io.env.KRECONCILE_DEBUG !== undefined && error instanceof Error ? `\n${error.stack ?? ''}` : '';
    io.stderr.write(
      `error: internal error: ${error instanceof Error ? error.message : String(error)} (please report it; KRECONCILE_DEBUG=1 shows the stack)${detail}\n`,
    );
    return EXIT_ERROR;
  }
};
