/**
 * Errors of the CLI as data, and the one line each becomes on stderr:
 * where (file:line:col, document), what (JSON path and problem) and what to do.
 */

/** Where a problem is: a file, a document in it (1-based) and a position when known. */
export type Location = {
  readonly file: string;
  readonly document?: number;
  readonly line?: number;
  readonly column?: number;
};

export type CliError = {
  readonly _tag: 'InputError' | 'UsageError' | 'ClusterError' | 'PlanError';
  readonly location?: Location;
  /** The object the problem is about, e.g. `Application shop/web`. */
  readonly subject?: string;
  /** A JSON path inside the document, e.g. `spec.observerSchema[0].spec.replicas`. */
  readonly path?: string;
  /** What is wrong and what to do about it. */
  readonly message: string;
};

export const inputError = (message: string, extra: Omit<CliError, '_tag' | 'message'> = {}): CliError => ({
  _tag: 'InputError',
  message,
  ...extra,
});
export const usageError = (message: string): CliError => ({ _tag: 'UsageError', message });
export const clusterFailure = (message: string): CliError => ({ _tag: 'ClusterError', message });

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

export const showLocation = (location: Location): string =>
  location.line === undefined ? location.file : `${location.file}:${location.line}:${location.column ?? 1}`;

/**
 * `error: app.yaml:12:7: document 1 (Application shop/web): spec.replicas: must be null, got 3: write null`
 * Always a single line, whatever the message holds.
 */
export const showCliError = (error: CliError): string => {
  const where = error.location === undefined ? '' : `${showLocation(error.location)}: `;
  const document = error.location?.document === undefined ? '' : `document ${error.location.document}`;
  const about =
    document === ''
      ? error.subject === undefined
        ? ''
        : `${error.subject}: `
      : `${document}${error.subject === undefined ? '' : ` (${error.subject})`}: `;
  const path = error.path === undefined || error.path === '' ? '' : `${error.path}: `;
  return oneLine(`error: ${where}${about}${path}${error.message}`);
};

/** The `code` of a Node system error (`ENOENT`, `EADDRINUSE`, …), undefined for anything else. */
export const errnoCode = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
