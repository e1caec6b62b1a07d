/** TOSCA inputs for CLI tests: CSAR archives zipped from directories, and a stand-in network serving files by URL. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { zipSync } from 'fflate';
import type { Fetcher, FetcherOptions } from '../../../app/tosca/fetch.js';

const filesBelow = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });

/** The CSAR (a zip) of a directory, paths relative to it: what `zip -r` in the directory makes. */
export const csarOfDirectory = (dir: string): Uint8Array =>
  zipSync(
    Object.fromEntries(
      filesBelow(dir).map((path) => [relative(dir, path).split('\\').join('/'), new Uint8Array(readFileSync(path))]),
    ),
  );

/** A network of fixed bodies by URL; records the fetcher options the CLI chose and every URL asked for. */
export type StandInNetwork = {
  readonly toscaFetcher: (options: FetcherOptions) => Fetcher;
  readonly options: FetcherOptions[];
  readonly requested: string[];
};

export const standInNetwork = (bodies: Readonly<Record<string, Uint8Array>>): StandInNetwork => {
  const options: FetcherOptions[] = [];
  const requested: string[] = [];
  return {
    options,
    requested,
    toscaFetcher: (chosen) => {
      options.push(chosen);
      return async (url) => {
        requested.push(url);
        const body = bodies[url];
        return body === undefined ? E.left({ url, message: 'HTTP 404', retryable: false }) : E.right(body);
      };
    },
  };
};
