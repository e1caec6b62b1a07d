/**
 * What the CLI needs from its process, as one injectable value: the composition root
 * (`process-main.ts`) wires the real process, tests wire strings and fakes.
 */
import type { ClusterReader, ClusterWriter, CompactSchemas, Discovery, JsonObject } from '../../core/internal.js';
import type { Fetcher, FetcherOptions } from '../tosca/fetch.js';
import type { CappedRead } from './input/capped.js';

/** A place to write text (stdout or stderr). */
export type Sink = { readonly write: (text: string) => void };

/** An entry of a directory listing; `directory` is false for files and symbolic links. */
export type DirectoryEntry = { readonly name: string; readonly directory: boolean };

/** Where `--kubeconfig`/`--context` point. */
export type ClusterTarget = { readonly kubeconfigPath?: string; readonly context?: string };

export type CliIo = {
  readonly stdout: Sink;
  readonly stderr: Sink;
  /** Whether stdout is a terminal (colours only then, and only without `NO_COLOR`). */
  readonly isTTY: boolean;
  /** Whether stderr is a terminal: `run` logs readable lines there, JSON lines otherwise. Absent: not a terminal. */
  readonly stderrIsTTY?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard input (`-f -`); reading stops after `maxBytes` bytes. */
  readonly readStdin: (maxBytes: number) => Promise<CappedRead>;
  /**
   * A file's text (small files only: certificates, keys); rejects with the Node error (its `code` is used for the
   * message).
   */
  readonly readFile: (path: string) => Promise<string>;
  /**
   * The entries of a directory (`-f dir/`); rejects with the Node error (ENOTDIR for a file,
   * ENOENT when missing). Absent: `-f` names files only.
   */
  readonly readDirectory?: (path: string) => Promise<ReadonlyArray<DirectoryEntry>>;
  /** An input file's text, stat first, reading stops after `maxBytes` bytes; rejects as `readFile`. */
  readonly readFileCapped: (path: string, maxBytes: number) => Promise<CappedRead>;
  /** The current time (the default of `--now`). */
  readonly now: () => Date;
  /** A read-only view of a live cluster; rejects when it cannot be reached or configured. */
  readonly connect: (target: ClusterTarget) => Promise<ClusterReader>;
  /**
   * A live cluster that may be written (`apply` only), with its discovery (the scopes writes are
   * checked against); rejects when it cannot be reached or configured.
   */
  readonly connectWritable: (target: ClusterTarget) => Promise<ClusterReader & ClusterWriter & Discovery>;
  /** Writes a file readable by its owner only (`plan --out`: a plan describes the cluster). */
  readonly writeFile: (path: string, text: string) => Promise<void>;
  /**
   * The cluster's OpenAPI v3 documents of the given apiVersions, by apiVersion (`validate
   * --kubeconfig`); rejects when the cluster cannot be read. Absent: validation stays offline.
   */
  readonly fetchOpenApi?: (
    target: ClusterTarget,
    apiVersions: ReadonlyArray<string>,
  ) => Promise<ReadonlyMap<string, JsonObject>>;
  /**
   * Fetches TOSCA templates and CSARs by URL (`plan --allow-tosca-fetch`, `--tosca-file-root`).
   * Absent: app/tosca's `createFetcher`, the operator's bounded, SSRF-checked fetcher. Tests give
   * one that serves files for the example URLs.
   */
  readonly toscaFetcher?: (options: FetcherOptions) => Fetcher;
  /**
   * The schemas of Kubernetes' built-in kinds that ship with the package (offline validation in
   * `validate` and before `apply` writes a saved plan); throws when the installation lacks them.
   * Absent: built-in kinds are not checked offline.
   */
  readonly builtinSchemas?: () => CompactSchemas;
  /** The package version, for `--version`. */
  readonly version: string;
  /** SIGTERM/SIGINT for `run`; absent in tests that never stop by signal. */
  readonly onSignal?: SignalSource;
};

/** Process signals for long-running commands (`run`): registers a handler for SIGTERM and SIGINT. */
export type SignalSource = (handler: (signal: 'SIGTERM' | 'SIGINT') => void) => void;
