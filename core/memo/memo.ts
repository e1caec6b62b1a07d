/**
 * Memoization as a value the caller owns (issue 18): core keeps no state between calls, so a
 * cache lives in a `Memo` that a caller creates, passes down and drops. Each table of a memo maps
 * an input object to what was derived from it; since inputs are immutable by contract, an entry
 * stays true for its key's life, and a weak table lets the key's owner decide that life.
 *
 * A table's key must be the whole input of the value it caches (the object it was derived from,
 * everything else being compared in the entry by `sameInputs`): a key that leaves out an input
 * answers one caller with another caller's value.
 */

/** A named table of a memo: what is cached, keyed by the object it was derived from. */
export type MemoTable<K extends object, V> = { readonly name: string; readonly _types?: (key: K) => V };

/** Declares a table; each module declares its own (a constant description, no state). */
export const memoTable = <K extends object, V>(name: string): MemoTable<K, V> => ({ name });

/** Caches a caller owns: one per controller, one per CLI run, or none. Opaque to callers. */
export type Memo = {
  readonly tables: Map<MemoTable<object, unknown>, WeakMap<object, unknown>>;
  /**
   * Whether the memo outlives the call it is passed to. One that does not (`callMemo`) only
   * serves reuse within that call: what only a later call could use is not worth recording.
   */
  readonly lasting: boolean;
};

/** A new, empty memo. */
export const createMemo = (): Memo => ({ tables: new Map(), lasting: true });

/** The memo of one call that was given none: reuse within the call, nothing recorded for later calls. */
export const callMemo = (): Memo => ({ tables: new Map(), lasting: false });

/** Whether what `memo` records can serve a later call (a memo the caller keeps). */
export const outlivesCall = (memo: Memo | undefined): memo is Memo => memo !== undefined && memo.lasting;

const tableIn = <K extends object, V>(memo: Memo, table: MemoTable<K, V>): WeakMap<K, V> => {
  // Tables of every key and value type share one map; each is only read back through its own typed handle.
  const key = table as MemoTable<object, unknown>;
  let found = memo.tables.get(key);
  if (found === undefined) {
    found = new WeakMap();
    memo.tables.set(key, found);
  }
  // Only `table`'s own entries were stored under it, as K to V (see remember and keep).
  return found as WeakMap<K, V>;
};

/** What `table` holds for `key` in `memo` (nothing without a memo). */
export const recall = <K extends object, V>(memo: Memo | undefined, table: MemoTable<K, V>, key: K): V | undefined =>
  memo === undefined ? undefined : tableIn(memo, table).get(key);

/** Keeps `value` for `key` in `memo` (without a memo, nothing is kept); returns `value`. */
export const keep = <K extends object, V>(
  memo: Memo | undefined,
  table: MemoTable<K, V>,
  key: K,
  value: NoInfer<V>,
): V => {
  if (memo !== undefined) tableIn(memo, table).set(key, value);
  return value;
};

/** `derive(key)`, computed once per key while `memo` lives (every call without a memo). */
export const remember = <K extends object, V>(
  memo: Memo | undefined,
  table: MemoTable<K, V>,
  key: K,
  derive: (key: K) => NoInfer<V>,
): V => {
  if (memo === undefined) return derive(key);
  const known = tableIn(memo, table);
  const found = known.get(key);
  if (found !== undefined) return found;
  const value = derive(key);
  known.set(key, value);
  return value;
};

/**
 * Whether two records of inputs hold the same values key by key (by identity, over every own key
 * of both: no hand-written list of fields that a new input could be missing from).
 */
export const sameInputs = (
  left: Readonly<Record<string, unknown>> | undefined,
  right: Readonly<Record<string, unknown>> | undefined,
): boolean => {
  if (left === right) return true;
  if (left === undefined || right === undefined) return false;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && left[key] === right[key]);
};
