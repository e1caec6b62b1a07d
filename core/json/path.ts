/** Paths into JSON documents: a readable form for humans and RFC 6901 pointers for patches. */

export type PathStep = string | number;
export type Path = ReadonlyArray<PathStep>;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `spec.template.spec.containers[0].image`; odd keys quoted: `metadata.labels["app.kubernetes.io/name"]`. */
export const showPath = (path: Path, root = ''): string =>
  path.reduce<string>((text, step) => {
    if (typeof step === 'number') return `${text}[${step}]`;
    if (identifier.test(step)) return text === '' ? step : `${text}.${step}`;
    return `${text}[${JSON.stringify(step)}]`;
  }, root);

/** RFC 6901 escaping: `~` → `~0`, `/` → `~1` (label keys such as `app.kubernetes.io/name` need it). */
export const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

export const unescapePointerToken = (token: string): string =>
  // Most tokens hold no escape: returned as they are, without two regular-expression passes each.
  token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token;

/** RFC 6901 JSON Pointer for a path. */
export const toPointer = (path: Path): string => path.map((step) => `/${escapePointerToken(String(step))}`).join('');

/** Parses an RFC 6901 pointer into its (string) tokens. */
export const fromPointer = (pointer: string): ReadonlyArray<string> =>
  pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointerToken);
