/**
 * The runtime's logger for production: pino, one JSON line per record on stderr, written
 * synchronously so the line about a defect is out before anything else happens to the process.
 * `startEmbeddedOperator` uses it (at `warn`) when given no logger: a reconcile defect (a crash
 * the loop backs off from) is logged at `error`, an API error or a hot loop at `warn`.
 */
import { pino, type DestinationStream } from 'pino';
import type { Logger } from '../logging/logger.js';

export type DefaultLoggerOptions = {
  /** The least severe records written (default `info`). */
  readonly level?: 'debug' | 'info' | 'warn' | 'error';
  /** Where lines go (default: stderr). */
  readonly destination?: DestinationStream;
};

export const createDefaultLogger = (options: DefaultLoggerOptions = {}): Logger => {
  const base = pino(
    { level: options.level ?? 'info', base: { component: 'kreconcile' } },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
  return {
    debug: (fields, message) => base.debug(fields, message),
    info: (fields, message) => base.info(fields, message),
    warn: (fields, message) => base.warn(fields, message),
    error: (fields, message) => base.error(fields, message),
  };
};
