/**
 * `-f` names with directories expanded the way kubectl does: a directory stands for its `.yaml`,
 * `.yml` and `.json` files in name order, and with `-R` for those of its subdirectories too.
 */
import { inputError, type CliError } from '../cli-error.js';
import type { CliIo, DirectoryEntry } from '../io.js';
import { STDIN } from './source.js';

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

export type Expanded = { readonly files: ReadonlyArray<string>; readonly errors: ReadonlyArray<CliError> };

const errorCode = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';

/**
 * The entries of `path` when it is a directory; undefined for anything else (a file, a missing path: reading it reports
 * that).
 */
const entriesOf = async (io: CliIo, path: string): Promise<ReadonlyArray<DirectoryEntry> | undefined> => {
  if (io.readDirectory === undefined) return undefined;
  try {
    return await io.readDirectory(path);
  } catch (error) {
    if (errorCode(error) === 'EACCES' || errorCode(error) === 'EPERM') throw error;
    return undefined;
  }
};

const join = (directory: string, name: string): string => `${directory.replace(/\/+$/, '')}/${name}`;

/** The manifest files below a directory, in name order (a subdirectory's files where its name sorts). */
const filesBelow = async (
  io: CliIo,
  directory: string,
  entries: ReadonlyArray<DirectoryEntry>,
  recursive: boolean,
): Promise<ReadonlyArray<string>> => {
  const files: string[] = [];
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(directory, entry.name);
    if (entry.directory) {
      const inner = recursive ? await entriesOf(io, path) : undefined;
      if (inner !== undefined) files.push(...(await filesBelow(io, path, inner, recursive)));
    } else if (MANIFEST_FILE.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
};

/**
 * The files named by `names`, directories replaced by their manifest files.
 * Errors: a directory without any such file; a directory that cannot be listed.
 */
export const expandDirectories = async (
  io: CliIo,
  names: ReadonlyArray<string>,
  recursive: boolean,
): Promise<Expanded> => {
  const files: string[] = [];
  const errors: CliError[] = [];
  for (const name of names) {
    try {
      const entries = name === STDIN ? undefined : await entriesOf(io, name);
      if (entries === undefined) {
        files.push(name);
        continue;
      }
      const found = await filesBelow(io, name, entries, recursive);
      if (found.length === 0) {
        errors.push(
          inputError(
            `no .yaml, .yml or .json file in this directory${recursive ? ' or below it' : ' (-R reads its subdirectories too)'}`,
            { location: { file: name } },
          ),
        );
      }
      files.push(...found);
    } catch {
      errors.push(
        inputError('permission denied: cannot list this directory, check its permissions', {
          location: { file: name },
        }),
      );
    }
  }
  return { files, errors };
};
