/**
 * What the CLI needs from its process, as one injectable value: the composition root
 * (`kreconcile.ts`) wires the real process, tests wire strings and fakes.
 */
import type { ClusterReader, ClusterWriter, CompactSchemas, JsonObject } from '../../core/index.js';
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
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard input (`-f -`); reading stops after `maxBytes` bytes. */
  readonly readStdin: (maxBytes: number) => Promise<CappedRead>;
  /** A file's text (small files only: certificates, keys); rejects with the Node error (its `code` is used for the message). */
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
  /** A live cluster that may be written (`apply` only); rejects when it cannot be reached or configured. */
  readonly connectWritable: (target: ClusterTarget) => Promise<ClusterReader & ClusterWriter>;
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
