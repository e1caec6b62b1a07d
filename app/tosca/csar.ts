/**
 * CSAR archives: a zip with `TOSCA-Metadata/TOSCA.meta`, whose `Entry-Definitions:` names the
 * template to translate. Only the two files needed are inflated, each bounded in size.
 */
import * as E from 'fp-ts/lib/Either.js';
import { unzipSync } from 'fflate';

export const TOSCA_META = 'TOSCA-Metadata/TOSCA.meta';

/** The entry template of a CSAR: its path in the archive and its text. */
export type CsarEntry = { readonly path: string; readonly text: string };

/**
 * The entry template of a CSAR archive.
 * Errors: not a zip archive, no TOSCA.meta, no `Entry-Definitions`, a path leaving the archive,
 * the entry missing, a file larger than `maxBytes` once inflated, text that is not UTF-8.
 */
export const csarEntry = (archive: Uint8Array, maxBytes: number): E.Either<string, CsarEntry> => {
  const meta = extract(archive, TOSCA_META, maxBytes);
  if (E.isLeft(meta)) return meta;
  if (meta.right === undefined) return E.left(`no ${TOSCA_META} in the archive`);
  const declared = entryDefinitions(meta.right);
  if (declared === undefined) return E.left(`${TOSCA_META} has no Entry-Definitions line`);
  const path = normalise(declared);
  if (path === undefined)
    return E.left(`${TOSCA_META}: Entry-Definitions ${JSON.stringify(declared)} is not a path inside the archive`);
  const entry = extract(archive, path, maxBytes);
  if (E.isLeft(entry)) return entry;
  if (entry.right === undefined)
    return E.left(`${TOSCA_META} names ${path} as Entry-Definitions, which the archive does not contain`);
  return E.right({ path, text: entry.right });
};

/** One file's text, undefined when absent. */
const extract = (archive: Uint8Array, path: string, maxBytes: number): E.Either<string, string | undefined> => {
  try {
    const files = unzipSync(archive, {
      filter: (file) => {
        if (file.name !== path) return false;
        // fflate inflates into a buffer of the declared size: bounding the declaration bounds memory.
        if (file.originalSize > maxBytes)
          throw new TooLarge(`${path} is larger than ${maxBytes} bytes once inflated (${file.originalSize})`);
        return true;
      },
    });
    const bytes = files[path];
    if (bytes === undefined) return E.right(undefined);
    return E.right(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof TooLarge) return E.left(error.message);
    if (error instanceof TypeError) return E.left(`${path} is not UTF-8 text`);
    return E.left(`not a readable zip archive (${error instanceof Error ? error.message : String(error)})`);
  }
};

class TooLarge extends Error {}

/** `Entry-Definitions: Definitions/app.yaml` (TOSCA.meta is `Key: value` lines, blocks separated by blank lines). */
const entryDefinitions = (meta: string): string | undefined => {
  for (const line of meta.split(/\r?\n/)) {
    const match = /^\s*Entry-Definitions\s*:\s*(.+?)\s*$/.exec(line);
    if (match !== null) return match[1];
  }
  return undefined;
};

/** A relative path inside the archive, without `.` or `..` segments that would leave it. */
const normalise = (path: string): string | undefined => {
  const parts: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.pop() === undefined) return undefined;
      continue;
    }
    parts.push(part);
  }
  return parts.length === 0 ? undefined : parts.join('/');
};
