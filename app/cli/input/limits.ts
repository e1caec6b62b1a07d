/**
 * Resource limits on untrusted input: files are parsed before anything else looks at them,
 * so a hostile or broken file must fail fast with a clear message instead of exhausting memory.
 */
import { DEFAULT_MAX_DEPTH } from '../../yaml/nesting.js';

export type InputLimits = {
  /** Largest accepted input, in bytes (etcd caps an object at 1.5 MiB; snapshots hold many). */
  readonly maxBytes: number;
  /** Deepest accepted nesting of lists and maps (real Kubernetes objects stay far below). */
  readonly maxDepth: number;
  /** YAML alias expansions allowed per document (the `yaml` library's billion-laughs guard). */
  readonly maxAliasCount: number;
  /** Values (scalars, lists, maps) allowed per document after alias expansion. */
  readonly maxNodes: number;
};

export const DEFAULT_LIMITS: InputLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxDepth: DEFAULT_MAX_DEPTH,
  maxAliasCount: 100,
  maxNodes: 2_000_000,
};
