/**
 * The manager of a write that names none: the client's User-Agent up to its first `/`
 * (`kubectl-client-side-apply/v1.36.3 (linux/amd64) …` → `kubectl-client-side-apply`),
 * unprintable characters dropped, at most 128 bytes (handlers/create.go's prefixFromUserAgent).
 */
const FIELD_MANAGER_MAX_LENGTH = 128;

const isPrintable = (character: string): boolean => !/[\p{C}\p{Z}]/u.test(character) || character === ' ';

export const prefixFromUserAgent = (userAgent: string): string => {
  let out = '';
  for (const character of userAgent.split('/')[0] ?? '') {
    if (!isPrintable(character)) continue;
    if (Buffer.byteLength(out + character) > FIELD_MANAGER_MAX_LENGTH) break;
    out += character;
  }
  return out;
};

export const managerOrUserAgent = (fieldManager: string | null | undefined, userAgent: string | undefined): string =>
  fieldManager !== null && fieldManager !== undefined && fieldManager !== ''
    ? fieldManager
    : prefixFromUserAgent(userAgent ?? '');
