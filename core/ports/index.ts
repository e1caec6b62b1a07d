/** The ports (types) and their tagged errors. */
export type * from './cluster.js';
export * from './errors.js';
export type * from './expressions.js';
