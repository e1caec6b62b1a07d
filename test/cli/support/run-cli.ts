/** Runs the CLI in-process with an injected process (io): captured output, virtual files, fake clusters. */
import { readdir, readFile } from 'node:fs/promises';
import type { ClusterReader, ClusterWriter, Discovery } from '../../../core/internal.js';
import type { CliIo, ClusterTarget } from '../../../app/cli/io.js';
import type { Fetcher, FetcherOptions } from '../../../app/tosca/fetch.js';
import { run } from '../../../app/cli/main.js';
import { readFileCapped, type CappedRead } from '../../../app/cli/input/capped.js';
import { writePrivateFile } from '../../../app/cli/saved-plan/private-file.js';
import { builtinSchemas } from '../../../adapters/schemas/builtin-schemas.js';

export type CliResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

export type RunOptions = {
  readonly stdin?: string;
  readonly isTTY?: boolean;
  readonly stderrIsTTY?: boolean;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Files served instead of the disk (by path as given on the command line). */
  readonly files?: Readonly<Record<string, string>>;
  readonly connect?: (target: ClusterTarget) => Promise<ClusterReader>;
  readonly connectWritable?: (target: ClusterTarget) => Promise<ClusterReader & ClusterWriter & Discovery>;
  readonly now?: Date;
  /** Stands in for the network behind `--allow-tosca-fetch` (default: the real fetcher). */
  readonly toscaFetcher?: (options: FetcherOptions) => Fetcher;
  /** Give the CLI the committed schemas of Kubernetes' built-in kinds, as the real executable has them. */
  readonly builtinSchemas?: boolean;
};

const noCluster = async (): Promise<never> => {
  throw new Error('no cluster in this test');
};

/** A virtual input as the real readers give it: the text, or too large (with its size when a file's). */
const capped = (text: string, maxBytes: number, size?: number): CappedRead =>
  Buffer.byteLength(text) > maxBytes
    ? { _tag: 'TooLarge', ...(size === undefined ? {} : { size }) }
    : { _tag: 'Text', text };

export const testIo = (
  options: RunOptions = {},
): { readonly io: CliIo; readonly out: string[]; readonly err: string[] } => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: {
      write: (text) => {
        out.push(text);
      },
    },
    stderr: {
      write: (text) => {
        err.push(text);
      },
    },
    isTTY: options.isTTY ?? false,
    ...(options.stderrIsTTY === undefined ? {} : { stderrIsTTY: options.stderrIsTTY }),
    env: options.env ?? {},
    readStdin: async (maxBytes) => capped(options.stdin ?? '', maxBytes),
    readFile: async (path) => options.files?.[path] ?? readFile(path, 'utf8'),
    readDirectory: async (path) =>
      (await readdir(path, { withFileTypes: true })).map((entry) => ({
        name: entry.name,
        directory: entry.isDirectory(),
      })),
    readFileCapped: async (path, maxBytes) => {
      const file = options.files?.[path];
      return file === undefined ? readFileCapped(path, maxBytes) : capped(file, maxBytes, Buffer.byteLength(file));
    },
    now: () => options.now ?? new Date('2026-03-02T12:34:56.789Z'),
    connect: options.connect ?? noCluster,
    connectWritable: options.connectWritable ?? noCluster,
    // The real writer: the mode of saved plans is part of what the CLI tests check.
    writeFile: writePrivateFile,
    ...(options.builtinSchemas === true ? { builtinSchemas } : {}),
    version: '0.0.0-test',
    ...(options.toscaFetcher === undefined ? {} : { toscaFetcher: options.toscaFetcher }),
  };
  return { io, out, err };
};

export const runCli = async (argv: ReadonlyArray<string>, options: RunOptions = {}): Promise<CliResult> => {
  const { io, out, err } = testIo(options);
  const code = await run(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

/** The non-empty lines of a text. */
export const linesOf = (text: string): ReadonlyArray<string> => text.split('\n').filter((line) => line !== '');
