/**
 * Reading input with a byte cap while it streams: standard input and files stop being read at the
 * cap, so `kreconcile plan -f -` fed an endless or huge stream uses bounded memory and says so.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

/** What a capped read gave: all of the text, or the news that there was more than allowed. */
export type CappedRead =
  | { readonly _tag: 'Text'; readonly text: string }
  /** `size`: the whole size when it was known beforehand (a file's), else absent (a stream stopped at the cap). */
  | { readonly _tag: 'TooLarge'; readonly size?: number };

/** Reads `chunks` until they end or exceed `maxBytes` (then stops reading: the source is closed). */
export const readCapped = async (chunks: AsyncIterable<Buffer | string>, maxBytes: number): Promise<CappedRead> => {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) return { _tag: 'TooLarge' }; // leaving the loop closes the stream
    parts.push(bytes);
  }
  return { _tag: 'Text', text: Buffer.concat(parts, size).toString('utf8') };
};

/**
 * A file's text, read only if its size (stat first) is within `maxBytes`, and then through a
 * stream capped at `maxBytes + 1` bytes (a file growing meanwhile is cut off, not read whole).
 * Errors: rejects with the Node error (ENOENT, EACCES, EISDIR…) when it cannot be read.
 */
export const readFileCapped = async (path: string, maxBytes: number): Promise<CappedRead> => {
  const info = await stat(path);
  if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: 'EISDIR' });
  if (info.isFile() && info.size > maxBytes) return { _tag: 'TooLarge', size: info.size };
  return readCapped(createReadStream(path, { start: 0, end: maxBytes }), maxBytes);
};
