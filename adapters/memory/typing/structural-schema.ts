/**
 * Structural-schema handling of custom resources: pruning and defaulting live in the core
 * (core/schema/structural), shared with offline validation; this is the memory server's entry.
 */
export { pruneAndDefaultResource } from '../../../core/schema/structural/prune-default.js';
