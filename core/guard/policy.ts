/**
 * The guard policy (`kreconcile plan --guard`, `kreconcile run --guard`, `kreconcile apply --guard`):
 * rules over the write actions of plans, one document shared by CI and the operator. Decoded here,
 * strict about unknown keys, so a misspelt rule is an error instead of a silently weaker guard.
 */
import * as t from 'io-ts';
import { isJsonObject } from '../json/json.js';

/** The write actions a rule can name (waits, conflicts and forbidden children write nothing). */
export type GuardedActionType = 'create' | 'patch' | 'delete' | 'recreate';

/**
 * Denies every action matching all the selectors given (at least one is): its type, its kind
 * (`Kind` in any API group, `group/Kind`, `core/Kind` for the core group), the namespace it is
 * written to (`*` globs; cluster-scoped objects have none and never match), its name (globs), and
 * for patches and recreations the fields they change (readable paths, `spec.selector`, covering
 * everything below them).
 */
export type DenySelector = {
  readonly actions?: ReadonlyArray<GuardedActionType>;
  readonly kinds?: ReadonlyArray<string>;
  readonly namespaces?: ReadonlyArray<string>;
  readonly names?: ReadonlyArray<string>;
  readonly paths?: ReadonlyArray<string>;
};

/**
 * One rule: exactly one of `deny`, `maxDeletes` (per Application) and `maxDeletesPerPlan` (all Applications planned
 * together).
 */
export type GuardRule =
  | { readonly name: string; readonly deny: DenySelector }
  | { readonly name: string; readonly maxDeletes: number }
  | { readonly name: string; readonly maxDeletesPerPlan: number };

export type GuardPolicy = { readonly rules: ReadonlyArray<GuardRule> };

/** A value that is an object with no keys but `keys` (io-ts `exact` would drop them silently). */
const onlyKeys = <C extends t.Mixed>(codec: C, keys: ReadonlyArray<string>): t.Type<t.TypeOf<C>, t.OutputOf<C>> =>
  new t.Type<t.TypeOf<C>, t.OutputOf<C>>(
    codec.name,
    codec.is,
    (input, context) => {
      const unknown = isJsonObject(input) ? Object.keys(input).filter((k) => !keys.includes(k)) : [];
      return unknown.length > 0
        ? t.failure(
            input,
            context,
            `unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')}: expected ${keys.join(', ')}`,
          )
        : codec.validate(input, context);
    },
    codec.encode,
  );

/** A string that passes `test`, or a failure saying what was `expected`. */
const checkedString = (name: string, test: (value: string) => boolean, expected: string): t.Type<string, string> =>
  new t.Type<string, string>(
    name,
    (u): u is string => typeof u === 'string' && test(u),
    (u, c) =>
      typeof u === 'string' && test(u)
        ? t.success(u)
        : t.failure(u, c, `expected ${expected}, got ${JSON.stringify(u)}`),
    t.identity,
  );

const KIND = /^\*$|^([a-z0-9.-]+\/)?[A-Z][A-Za-z0-9]*$/;
const GLOB = /^[a-z0-9*?.-]{1,253}$/;
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

const KindName = checkedString(
  'a kind',
  (u) => KIND.test(u),
  'Kind (any API group), group/Kind, core/Kind or "*" (e.g. PersistentVolumeClaim, apps/StatefulSet)',
);
const NameGlob = checkedString(
  'a name pattern',
  (u) => GLOB.test(u),
  'a name pattern (lowercase, * and ? as wildcards)',
);
const FieldPath = checkedString(
  'a field path',
  (u) => parseFieldPath(u) !== undefined,
  'a field path such as spec.selector or metadata.labels["app.kubernetes.io/name"]',
);
const RuleName = checkedString(
  'a rule name',
  (u) => RULE_NAME.test(u),
  'a rule name (letters, digits, ".", "_", "-"; at most 63 characters)',
);

const Count = new t.Type<number, number>(
  'a count',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0,
  (u, c) =>
    typeof u === 'number' && Number.isInteger(u) && u >= 0
      ? t.success(u)
      : t.failure(u, c, `expected a whole number ≥ 0, got ${JSON.stringify(u)}`),
  t.identity,
);

const nonEmpty = <C extends t.Mixed>(codec: C): t.Type<ReadonlyArray<t.TypeOf<C>>, ReadonlyArray<t.OutputOf<C>>> => {
  const list = t.readonlyArray(codec);
  return new t.Type<ReadonlyArray<t.TypeOf<C>>, ReadonlyArray<t.OutputOf<C>>>(
    list.name,
    list.is,
    (u, c) =>
      Array.isArray(u) && u.length === 0
        ? t.failure(u, c, 'expected at least one entry (leave the key out instead)')
        : list.validate(u, c),
    list.encode,
  );
};

const SELECTOR_KEYS = ['actions', 'kinds', 'namespaces', 'names', 'paths'];

const DenyCodec = onlyKeys(
  t.partial({
    actions: nonEmpty(t.keyof({ create: null, patch: null, delete: null, recreate: null })),
    kinds: nonEmpty(KindName),
    namespaces: nonEmpty(NameGlob),
    names: nonEmpty(NameGlob),
    paths: nonEmpty(FieldPath),
  }),
  SELECTOR_KEYS,
);

const DenySelectorCodec = new t.Type<DenySelector, DenySelector>(
  'a deny selector',
  DenyCodec.is,
  (u, c) =>
    isJsonObject(u) && Object.keys(u).length === 0
      ? t.failure(
          u,
          c,
          `a deny selector names at least one of ${SELECTOR_KEYS.join(', ')} (an empty one would deny everything)`,
        )
      : DenyCodec.validate(u, c),
  t.identity,
);

const RULE_KINDS = ['deny', 'maxDeletes', 'maxDeletesPerPlan'];

const RuleCodec = new t.Type<GuardRule, GuardRule>(
  'a guard rule',
  (u): u is GuardRule => isJsonObject(u),
  (u, c) => {
    if (!isJsonObject(u)) return t.failure(u, c, 'expected a rule: name, and deny, maxDeletes or maxDeletesPerPlan');
    const given = RULE_KINDS.filter((key) => Object.prototype.hasOwnProperty.call(u, key));
    if (given.length !== 1)
      return t.failure(
        u,
        c,
        `a rule has exactly one of ${RULE_KINDS.join(', ')}${given.length === 0 ? '' : ` (this one has ${given.join(' and ')})`}`,
      );
    const codec =
      given[0] === 'deny'
        ? onlyKeys(t.type({ name: RuleName, deny: DenySelectorCodec }), ['name', 'deny'])
        : given[0] === 'maxDeletes'
          ? onlyKeys(t.type({ name: RuleName, maxDeletes: Count }), ['name', 'maxDeletes'])
          : onlyKeys(t.type({ name: RuleName, maxDeletesPerPlan: Count }), ['name', 'maxDeletesPerPlan']);
    return codec.validate(u, c);
  },
  t.identity,
);

const uniqueNames = (rules: ReadonlyArray<GuardRule>): string | undefined => {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.name)) return rule.name;
    seen.add(rule.name);
  }
  return undefined;
};

const RulesCodec = new t.Type<ReadonlyArray<GuardRule>, ReadonlyArray<GuardRule>>(
  'ReadonlyArray<a guard rule>',
  (u): u is ReadonlyArray<GuardRule> => Array.isArray(u),
  (u, c) => {
    const decoded = t.readonlyArray(RuleCodec).validate(u, c);
    if (decoded._tag === 'Left') return decoded;
    const twice = uniqueNames(decoded.right);
    // Violations name their rule: two rules of one name would make the report ambiguous.
    return twice === undefined ? decoded : t.failure(u, c, `rule name ${JSON.stringify(twice)} is used twice`);
  },
  t.identity,
);

/** The guard file: optionally `apiVersion: kreconcile.io/v1alpha1` and `kind: GuardPolicy`, then `rules`. */
export const GuardPolicyDocument = onlyKeys(
  t.intersection([
    t.type({ rules: RulesCodec }),
    t.partial({ apiVersion: t.literal('kreconcile.io/v1alpha1'), kind: t.literal('GuardPolicy') }),
  ]),
  ['apiVersion', 'kind', 'rules'],
);

/** The rules of a decoded guard document. */
export const guardPolicyOf = (document: t.TypeOf<typeof GuardPolicyDocument>): GuardPolicy => ({
  rules: document.rules,
});

const PATH_TOKEN = /^(?:\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/**
 * The steps of a readable field path (`spec.selector`, `spec.containers[0].image`,
 * `metadata.labels["app.kubernetes.io/name"]`) as strings (indices too, as JSON Pointer tokens
 * are), or `undefined` when it does not read as one.
 */
export const parseFieldPath = (text: string): ReadonlyArray<string> | undefined => {
  const steps: string[] = [];
  let rest = text;
  while (rest !== '') {
    const match = PATH_TOKEN.exec(rest);
    if (match === null || (steps.length === 0 && rest.startsWith('.'))) return undefined;
    const [whole, name, index, quoted] = match;
    if (name !== undefined) steps.push(name);
    else if (index !== undefined) steps.push(index);
    else if (quoted !== undefined) {
      try {
        steps.push(String(JSON.parse(quoted)));
      } catch {
        return undefined;
      }
    }
    rest = rest.slice(whole.length);
  }
  return steps.length === 0 ? undefined : steps;
};
