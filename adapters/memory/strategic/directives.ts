/** The strategic merge patch's directive keys and the helpers that strip or check them. */
import { fail, BAD_PRIMITIVE_LIST, BAD_SET_ELEMENT_ORDER } from './merge-failure.js';
import { hasMember, isObj, setMember, type Value } from './go-values.js';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** `$setElementOrder/containers` → `containers`; a prefix with no `/<field>` is a malformed patch (400). */
export const directiveField = (key: string, prefix: string): string => {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix)
    return fail(400, prefix === SET_ELEMENT_ORDER ? BAD_SET_ELEMENT_ORDER : BAD_PRIMITIVE_LIST);
  return key.slice(slash + 1);
};

/** Whether an item is a map carrying `$patch`. */
export const hasDirective = (item: Value | undefined): boolean => isObj(item) && hasMember(item, DIRECTIVE);

/**
 * A patch value taken where the original has nothing to merge with: maps carrying `$patch` are
 * dropped, at any depth (the value itself too: `keep` false).
 */
export const withoutDirectives = (value: Value): { readonly value: Value; readonly keep: boolean } => {
  if (Array.isArray(value))
    return {
      value: value.flatMap((item) => {
        const stripped = withoutDirectives(item);
        return stripped.keep ? [stripped.value] : [];
      }),
      keep: true,
    };
  if (!isObj(value)) return { value, keep: true };
  if (hasMember(value, DIRECTIVE)) return { value: null, keep: false };
  for (const key of Object.keys(value)) {
    const stripped = withoutDirectives(value[key] ?? null);
    if (stripped.keep) setMember(value, key, stripped.value);
    else delete value[key];
  }
  return { value, keep: true };
};

/** Null members removed at every depth, list items included (a `null` item itself stays). */
export const withoutNulls = (value: Value): void => {
  if (Array.isArray(value)) for (const item of value) withoutNulls(item);
  else if (isObj(value))
    for (const key of Object.keys(value)) {
      const member = value[key] ?? null;
      if (member === null) delete value[key];
      else withoutNulls(member);
    }
};

/**
 * A field's strategies without `retainKeys` (which `$retainKeys` in the patch carries out): the
 * list or map strategy left, `merge`, `replace` or none.
 */
export const listOrMapStrategy = (strategies: ReadonlyArray<string>): string => {
  const others = strategies.filter((strategy) => strategy !== 'retainKeys');
  if (others.length > 1 || strategies.length > 2)
    return fail(500, `unexpected patch strategy: [${strategies.join(' ')}]`);
  return others[0] ?? '';
};
