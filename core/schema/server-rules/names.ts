/**
 * The name and number rules of k8s.io/apimachinery's validation (pkg/util/validation) that the
 * API server applies to containers, ports and selectors, with its messages. Pure.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `IsDNS1123Label`'s problem (a container name, a Service port name), or `undefined`. */
export const dns1123LabelProblem = (value: string): string | undefined => {
  if (value.length > 63) return 'must be no more than 63 characters';
  return DNS1123_LABEL.test(value)
    ? undefined
    : "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
};

/** `IsValidPortName` (IANA_SVC_NAME: a container port's name, a named targetPort): its first problem. */
export const portNameProblem = (value: string): string | undefined => {
  if (value.length > 15) return 'must be no more than 15 characters';
  if (!/^[-a-z0-9]+$/.test(value)) return 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)';
  if (!/[a-z]/.test(value)) return 'must contain at least one letter (a-z)';
  if (value.includes('--')) return 'must not contain consecutive hyphens';
  return value.startsWith('-') || value.endsWith('-') ? 'must not begin or end with a hyphen' : undefined;
};

/** `IsValidPortNum`: 1–65535. */
export const portNumberProblem = (value: number): string | undefined =>
  Number.isInteger(value) && value >= 1 && value <= 65535 ? undefined : 'must be between 1 and 65535, inclusive';

/** At most this much of a tenant's value is quoted in a message. */
const SHOWN_CHARACTERS = 80;

/** A value as a message quotes it, cut short. */
export const quoted = (value: string): string =>
  JSON.stringify(value.length > SHOWN_CHARACTERS ? `${value.slice(0, SHOWN_CHARACTERS)}…` : value);
