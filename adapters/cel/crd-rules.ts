/**
 * A CRD's `x-kubernetes-validations` on @marcbachmann/cel-js, as apiextensions-apiserver runs
 * them: `self` (and `oldSelf` on an update, for transition rules) typed by the schema (`integer`
 * is CEL `int`, `number` is `double`), `message` or `messageExpression`, `reason`, `fieldPath`.
 *
 * Bounded as the real server bounds them: each rule's cost is estimated when the CRD is checked
 * (AST size times the sizes of the lists and maps its comprehensions iterate, from `maxItems` /
 * `maxProperties`, else what a 3 MiB request could hold) and refused over the server's
 * per-rule (10⁷) and per-CRD (10⁸) limits; at run time each request has the server's budget (10⁷)
 * charged per evaluation with the size of the values read. `matches()` runs on the linear-time
 * RE2 engine (core/schema/structural/regex.ts), never JavaScript's backtracking RegExp.
 * docs/decisions/0024-custom-resource-schema.md.
 */
import { Environment } from '@marcbachmann/cel-js';
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../core/json/json.js';
import type { ErrorCause } from '../../core/ports/errors.js';
import { duplicate, forbidden, invalid, required } from '../../core/schema/structural/go-text.js';
import { compileRegex } from '../../core/schema/structural/regex.js';
import type { CrdRules, RuleCheck } from '../../core/schema/structural/rules.js';
import { celNode, comprehensionCost, mentionsOldSelf, type CelNode } from './crd-rule-cost.js';
import { jsonText } from '../../core/json/text.js';

/** kube-apiserver's limits (k8s.io/apiserver/pkg/apis/cel/config.go). */
export const CEL_LIMITS = {
  perRuleEstimate: 10_000_000,
  perCrdEstimate: 100_000_000,
  perRequestRuntime: 10_000_000,
} as const;

const re2Matches = (text: unknown, pattern: unknown): boolean => {
  if (typeof text !== 'string' || typeof pattern !== 'string') throw new Error('matches() needs strings');
  const compiled = compileRegex(pattern);
  if (E.isLeft(compiled)) throw new Error(`invalid regular expression: ${compiled.left}`);
  return compiled.right.test(text);
};

const newEnvironment = (): Environment =>
  new Environment({
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: 4_096, maxDepth: 64, maxListElements: 1_000, maxMapEntries: 1_000, maxCallArguments: 32 },
  })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', 'dyn')
    .registerFunction('string.re2Matches(string): bool', re2Matches);

type Program = ReturnType<Environment['parse']>;

/** A compiled rule: the program, its AST size, whether it reads `oldSelf`. */
type Compiled = {
  readonly program: Program;
  readonly nodes: number;
  readonly transition: boolean;
  readonly ast: CelNode;
};

/** Routes `matches` to the RE2 engine: the parsed AST is rewritten in place before its first run. */
const routeMatches = (node: unknown): number => {
  if (Array.isArray(node)) return node.reduce<number>((sum, child) => sum + routeMatches(child), 0);
  const parsed = celNode(node);
  if (parsed === undefined) return 0;
  if (parsed.op === 'rcall' && Array.isArray(parsed.args) && parsed.args[0] === 'matches')
    parsed.args[0] = 're2Matches';
  return 1 + routeMatches(parsed.args);
};

const compileWith = (environment: Environment, source: string): E.Either<string, Compiled> => {
  try {
    const program = environment.parse(source);
    const ast = celNode(program.ast);
    if (ast === undefined) return E.left('no expression');
    const nodes = routeMatches(ast);
    return E.right({ program, nodes, transition: mentionsOldSelf(ast), ast });
  } catch (error) {
    return E.left((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '');
  }
};

/** JSON as the schema types it for CEL: `integer` (and int-or-string numbers) as int, `number` as double. */
const toCel = (value: JsonValue, schema: JsonValue | undefined): unknown => {
  const node = isJsonObject(schema) ? schema : {};
  if (typeof value === 'number')
    return getOwn(node, 'type') === 'number' || !Number.isSafeInteger(value) ? value : BigInt(value);
  if (isJsonArray(value)) return value.map((item) => toCel(item, getOwn(node, 'items')));
  if (!isJsonObject(value)) return value;
  const properties = getOwn(node, 'properties');
  const additional = getOwn(node, 'additionalProperties');
  const converted: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const property = isJsonObject(properties) ? getOwn(properties, key) : undefined;
    Object.defineProperty(converted, key, {
      value: toCel(getOwn(value, key) ?? null, property ?? additional),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return converted;
};

/** Nodes of a JSON value, counted up to `limit`: what one evaluation may read. */
const sizeOf = (value: JsonValue | undefined, limit: number): number => {
  let size = 0;
  const stack: Array<JsonValue | undefined> = [value];
  while (stack.length > 0 && size <= limit) {
    const next = stack.pop();
    size += 1;
    if (isJsonArray(next)) stack.push(...next);
    else if (isJsonObject(next)) for (const key of Object.keys(next)) stack.push(getOwn(next, key));
  }
  return size;
};

/** The value a failing rule's cause shows: a scalar itself (as kube-apiserver 1.36 prints it), else its type. */
const shownValue = (check: RuleCheck): JsonValue =>
  check.self !== null && typeof check.self === 'object' ? schemaTypeName(check.schema) : check.self;

const schemaTypeName = (schema: JsonObject): string => {
  const type = getOwn(schema, 'type');
  return typeof type === 'string' ? type : 'object';
};

/** The field a failing rule is reported at: the node's path, then the rule's `fieldPath`; the root is `<nil>`. */
const reportedAt = (path: string, fieldPath: JsonValue | undefined): string => {
  const relative = typeof fieldPath === 'string' ? fieldPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '') : '';
  const full = relative === '' ? path : path === '' ? relative : `${path}.${relative}`;
  return full === '' ? '<nil>' : full;
};

const causeFor = (rule: JsonObject, check: RuleCheck, detail: string): ErrorCause => {
  const field = reportedAt(check.path, getOwn(rule, 'fieldPath'));
  switch (getOwn(rule, 'reason')) {
    case 'FieldValueForbidden':
      return forbidden(field, detail);
    case 'FieldValueRequired':
      return required(field, detail);
    case 'FieldValueDuplicate':
      return duplicate(field, schemaTypeName(check.schema));
    default:
      return invalid(field, shownValue(check), detail);
  }
};

export type CrdRuleEngine = CrdRules;

/** A rule engine with its own compile cache (owned by its caller: a server, one offline run). */
export const crdRules = (): CrdRuleEngine => {
  const environment = newEnvironment();
  const cache = new Map<string, E.Either<string, Compiled>>();
  const compile = (source: string): E.Either<string, Compiled> => {
    const known = cache.get(source);
    if (known !== undefined) return known;
    const compiled = compileWith(environment, source);
    if (cache.size < 10_000) cache.set(source, compiled);
    return compiled;
  };
  return {
    check: (check) => checkNode(compile, check),
    schemaProblems: (schema, root) => schemaProblemsOf(compile, schema, root),
  };
};

type Compile = (source: string) => E.Either<string, Compiled>;

const evaluate = (compiled: Compiled, check: RuleCheck): E.Either<string, unknown> => {
  try {
    const self = toCel(check.self, check.schema);
    const oldSelf = check.oldSelf === undefined ? undefined : toCel(check.oldSelf, check.schema);
    return E.right(compiled.program(oldSelf === undefined ? { self } : { self, oldSelf }));
  } catch (error) {
    return E.left((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '');
  }
};

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** The message of a failed rule: its `messageExpression` when that gives a non-empty string, else `message`. */
const messageOf = (compile: Compile, rule: JsonObject, check: RuleCheck): string => {
  const expression = getOwn(rule, 'messageExpression');
  if (typeof expression === 'string') {
    const compiled = compile(expression);
    const value = E.isRight(compiled) ? evaluate(compiled.right, check) : undefined;
    if (value !== undefined && E.isRight(value) && typeof value.right === 'string' && value.right.trim() !== '')
      return value.right;
  }
  const message = getOwn(rule, 'message');
  return typeof message === 'string' && message !== '' ? message : `failed rule: ${jsonText(getOwn(rule, 'rule'))}`;
};

const checkNode = (compile: Compile, check: RuleCheck): ReadonlyArray<ErrorCause> => {
  const rules = getOwn(check.schema, 'x-kubernetes-validations');
  if (!isJsonArray(rules)) return [];
  const causes: ErrorCause[] = [];
  for (const rule of rules) {
    const source = isJsonObject(rule) ? getOwn(rule, 'rule') : undefined;
    const compiled = typeof source === 'string' ? compile(source) : undefined;
    if (!isJsonObject(rule) || compiled === undefined || E.isLeft(compiled)) continue; // refused with the CRD
    if (compiled.right.transition && check.oldSelf === undefined) continue;
    const cost =
      compiled.right.nodes *
      (sizeOf(check.self, CEL_LIMITS.perRequestRuntime) + sizeOf(check.oldSelf, CEL_LIMITS.perRequestRuntime));
    check.budget.remaining -= cost;
    if (check.budget.remaining < 0)
      return [...causes, invalid(reportedAt(check.path, undefined), schemaTypeName(check.schema), OUT_OF_BUDGET)];
    const result = evaluate(compiled.right, check);
    if (E.isRight(result) && result.right === true) continue;
    const detail = E.isLeft(result) ? `${jsonText(source)}: ${result.left}` : messageOf(compile, rule, check);
    causes.push(causeFor(rule, check, detail));
  }
  return causes;
};

const costProblem = (path: string, estimate: number, limit: number, what: string): ErrorCause =>
  forbidden(
    path,
    `${what} exceeds budget by factor of ${(estimate / limit).toFixed(1)}x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  );

/** Every rule of every node: compiled, and its estimated cost within the server's limits. */
const schemaProblemsOf = (compile: Compile, schema: JsonValue, root: string): ReadonlyArray<ErrorCause> => {
  const problems: ErrorCause[] = [];
  let total = 0;
  const visit = (node: JsonValue, path: string): void => {
    if (!isJsonObject(node)) return;
    const rules = getOwn(node, 'x-kubernetes-validations');
    if (isJsonArray(rules))
      rules.forEach((rule, index) => {
        const at = `${path}.x-kubernetes-validations[${index}]`;
        const source = isJsonObject(rule) ? getOwn(rule, 'rule') : undefined;
        if (typeof source !== 'string') return void problems.push(required(`${at}.rule`));
        const compiled = compile(source);
        if (E.isLeft(compiled))
          return void problems.push(invalid(`${at}.rule`, source, `compilation failed: ${compiled.left}`));
        const estimate = comprehensionCost(compiled.right.ast, node);
        total += estimate;
        if (estimate > CEL_LIMITS.perRuleEstimate)
          problems.push(costProblem(`${at}.rule`, estimate, CEL_LIMITS.perRuleEstimate, 'estimated rule cost'));
      });
    forEachSubSchema(node, path, visit);
  };
  visit(schema, root);
  if (total > CEL_LIMITS.perCrdEstimate)
    problems.push(
      costProblem(
        root,
        total,
        CEL_LIMITS.perCrdEstimate,
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
      ),
    );
  return problems;
};

const forEachSubSchema = (node: JsonObject, path: string, visit: (child: JsonValue, path: string) => void): void => {
  const properties = getOwn(node, 'properties');
  if (isJsonObject(properties))
    for (const key of Object.keys(properties)) visit(getOwn(properties, key) ?? null, `${path}.properties[${key}]`);
  for (const key of ['items', 'additionalProperties'])
    if (isJsonObject(getOwn(node, key))) visit(getOwn(node, key) ?? null, `${path}.${key}`);
};
