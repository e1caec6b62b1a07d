/** Kubernetes label key and value syntax (apimachinery `IsQualifiedName`, `IsValidLabelValue`). */

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export const isDnsSubdomain = (value: string): boolean => value.length <= 253 && dns1123Subdomain.test(value);

/** `prefix/name` or `name`; the prefix a DNS subdomain, the name at most 63 characters. */
export const isQualifiedName = (key: string): boolean => {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1] ?? '';
  const prefix = parts.length === 2 ? (parts[0] ?? '') : undefined;
  return (
    name.length <= 63 &&
    qualifiedNamePart.test(name) &&
    (prefix === undefined || (prefix.length > 0 && isDnsSubdomain(prefix)))
  );
};

export const isLabelValue = (value: string): boolean => value.length <= 63 && labelValue.test(value);
