/**
 * Writing a file only its owner may read, whatever was there before (`plan --out`: a saved plan
 * describes the cluster and may hold Secret values). `writeFile(path, …, { mode })` applies the
 * mode only when it creates the file: over an existing 0644 file the values would stay readable
 * (issue 19). So the text goes to a new file created 0600 next to `path`, then replaces it by rename.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Owner read and write, nobody else. */
export const PRIVATE_MODE = 0o600;

/** Writes `text` to `path` as a file of mode 0600, replacing what was there; rejects with the Node error. */
export const writePrivateFile = async (path: string, text: string): Promise<void> => {
  // Same directory: rename is atomic only within one file system.
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // `wx`: never follows or reuses an existing file (a planted symlink cannot redirect the write).
  const handle = await open(temporary, 'wx', PRIVATE_MODE);
  try {
    await handle.writeFile(text, 'utf8');
    // The umask can only narrow the creation mode; chmod makes it exactly 0600.
    await handle.chmod(PRIVATE_MODE);
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
};
