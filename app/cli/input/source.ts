/** Reading an input named on the command line: a file, or standard input for `-`. */
import * as E from 'fp-ts/lib/Either.js';
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo } from '../io.js';
import type { InputLimits } from './limits.js';

/** The text of one input and the name errors show for it. */
export type Source = { readonly name: string; readonly text: string };

export const STDIN = '-';

const reasonOf = (error: unknown): string => {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'ENOENT') return 'no such file: check the path';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied: check the file permissions';
  if (code === 'EISDIR') return 'is a directory: name a file (kubectl-style directories are not read)';
  return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
};

/**
 * Reads `name` (`-` = stdin), refusing inputs larger than the limit while reading them: nothing past the limit is read.
 */
export const readSource = async (
  io: CliIo,
  name: string,
  limits: Pick<InputLimits, 'maxBytes'>,
): Promise<E.Either<CliError, Source>> => {
  const shown = name === STDIN ? '<stdin>' : name;
  try {
    const read = name === STDIN ? await io.readStdin(limits.maxBytes) : await io.readFileCapped(name, limits.maxBytes);
    if (read._tag === 'Text') return E.right({ name: shown, text: read.text });
    const what =
      read.size === undefined
        ? `input larger than ${mebibytes(limits.maxBytes)}: reading stopped there; split it into several files`
        : `input is ${mebibytes(read.size)}, more than the ${mebibytes(limits.maxBytes)} limit: split it into several files`;
    return E.left(inputError(what, { location: { file: shown } }));
  } catch (error) {
    return E.left(inputError(reasonOf(error), { location: { file: shown } }));
  }
};

const mebibytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
