/**
 * Immutable reads and edits of JSON documents addressed by RFC 6901 pointer tokens (own properties only).
 * Not immer: a tenant's patch may add a `__proto__` member, which the API server stores as a key and
 * an immer draft refuses to assign (it throws); `withKey` writes it as an own property.
 */
import {
  getOwn,
  hasOwn,
  isJsonArray,
  isJsonObject,
  withKey,
  withoutKey,
  type JsonValue,
} from '../../../core/json/json.js';

export type EditResult =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

const ok = (value: JsonValue): EditResult => ({ ok: true, value });
const fail = (message: string): EditResult => ({ ok: false, message });

const arrayIndex = /^(0|[1-9][0-9]*)$/;

/** Parses an array token; `-` (past the end) only where `allowEnd`. */
const indexOf = (token: string, length: number, allowEnd: boolean): number | undefined => {
  if (token === '-') return allowEnd ? length : undefined;
  if (!arrayIndex.test(token)) return undefined;
  const index = Number(token);
  return index < length || (allowEnd && index === length) ? index : undefined;
};

/** The value at `tokens`, or undefined when any step is missing. */
export const valueAt = (document: JsonValue, tokens: ReadonlyArray<string>): JsonValue | undefined => {
  let current: JsonValue | undefined = document;
  for (const token of tokens) {
    if (isJsonArray(current)) {
      const index = indexOf(token, current.length, false);
      current = index === undefined ? undefined : current[index];
    } else current = isJsonObject(current) ? getOwn(current, token) : undefined;
    if (current === undefined) return undefined;
  }
  return current;
};

type Leaf = (container: JsonValue, token: string) => EditResult;

/** Rebuilds the path down to the parent of the last token and lets `leaf` change that parent. */
const editParent = (document: JsonValue, tokens: ReadonlyArray<string>, leaf: Leaf): EditResult => {
  const [head, ...rest] = tokens;
  if (head === undefined) return fail('the root cannot be edited here');
  if (rest.length === 0) return leaf(document, head);
  const child = valueAt(document, [head]);
  if (child === undefined) return fail(`missing path element "${head}"`);
  const edited = editParent(child, rest, leaf);
  return edited.ok ? replaceChild(document, head, edited.value) : edited;
};

const replaceChild = (container: JsonValue, token: string, value: JsonValue): EditResult => {
  if (isJsonArray(container)) {
    const index = indexOf(token, container.length, false);
    return index === undefined
      ? fail(`bad array index "${token}"`)
      : ok(container.map((item, i) => (i === index ? value : item)));
  }
  return isJsonObject(container)
    ? ok(withKey(container, token, value))
    : fail(`"${token}" is not in an object or array`);
};

/** RFC 6902 `add`: sets an object member or inserts into an array (parent must exist). */
export const addAt = (document: JsonValue, tokens: ReadonlyArray<string>, value: JsonValue): EditResult =>
  tokens.length === 0
    ? ok(value)
    : editParent(document, tokens, (container, token) => {
        if (isJsonArray(container)) {
          const index = indexOf(token, container.length, true);
          return index === undefined
            ? fail(`array index "${token}" out of bounds`)
            : ok([...container.slice(0, index), value, ...container.slice(index)]);
        }
        return isJsonObject(container)
          ? ok(withKey(container, token, value))
          : fail(`cannot add "${token}" to a non-container`);
      });

/** RFC 6902 `remove`: the target must exist. */
export const removeAt = (document: JsonValue, tokens: ReadonlyArray<string>): EditResult =>
  editParent(document, tokens, (container, token) => {
    if (isJsonArray(container)) {
      const index = indexOf(token, container.length, false);
      return index === undefined
        ? fail(`array index "${token}" out of bounds`)
        : ok(container.filter((_, i) => i !== index));
    }
    return isJsonObject(container) && hasOwn(container, token)
      ? ok(withoutKey(container, token))
      : fail(`missing member "${token}"`);
  });

/**
 * `replace` as kube-apiserver applies it (evanphx/json-patch v4, kept for compatibility): a
 * missing array index fails, but a missing OBJECT member is added — RFC 6902 says it must fail.
 */
export const replaceAt = (document: JsonValue, tokens: ReadonlyArray<string>, value: JsonValue): EditResult => {
  if (tokens.length === 0) return ok(value);
  return editParent(document, tokens, (container, token) =>
    isJsonObject(container) ? ok(withKey(container, token, value)) : replaceChild(container, token, value),
  );
};
