/**
 * The cost of a CEL expression, estimated from its syntax tree as the API server's CEL does for
 * validation rules (docs/decisions/0025-isolated-tenant-expressions.md): every node costs one,
 * traversing a string or list costs a tenth of its bytes, a comprehension costs its body once per
 * element of its range, and what an expression builds (`split`, `map`, `+`) is as large as its
 * inputs allow. The sizes come from a `Sizes` oracle:
 *
 * - statically (`staticSizes`), every value read from `self` is as large as the input bound allows:
 *   the estimate holds for any object the evaluator accepts, and `compile` refuses a rule over the
 *   static limit, in `kreconcile validate` and in the operator;
 * - at evaluation (`actualSizes`), the values are the object's own: the runtime cost limit refuses
 *   an evaluation over it before it runs.
 *
 * An estimate is an upper bound, never a count of what ran; what the model misses (a library
 * function slower than its cost) is caught by the worker's time and memory bounds.
 */
import { getIn, isJsonObject, type JsonValue } from '../../core/json/json.js';

/** What the cost of an operation depends on: its operand's serialized size and its element count. */
export type Shape = {
  /** Bytes of the value serialized as JSON (a string's length). */
  readonly bytes: number;
  /** Elements of a list, entries of a map, characters of a string. */
  readonly count: number;
};

/** The shape of the value at a field path of `self`. */
export type Sizes = (path: ReadonlyArray<string>) => Shape;

/** The estimated cost and the largest value an expression can give. */
export type Estimate = { readonly cost: number; readonly shape: Shape };

/** A value of constant size (a number, a boolean, a literal). */
const SCALAR: Shape = { bytes: 8, count: 1 };

/** Every value read from `self` is as large as an object of `maxInputBytes` allows. */
export const staticSizes =
  (maxInputBytes: number): Sizes =>
  () => ({ bytes: maxInputBytes, count: Math.ceil(maxInputBytes / 2) });

/** The values read from `self` are the object's own (absent: empty). */
export const actualSizes =
  (self: JsonValue): Sizes =>
  (path) => {
    const value = path.length === 0 ? self : getIn(self, path);
    if (value === undefined || value === null) return { bytes: 4, count: 0 };
    if (typeof value === 'string') return { bytes: value.length + 2, count: value.length };
    if (Array.isArray(value)) return { bytes: JSON.stringify(value).length, count: value.length };
    if (isJsonObject(value)) return { bytes: JSON.stringify(value).length, count: Object.keys(value).length };
    return SCALAR;
  };

/** Traversing `bytes` (comparing, searching, copying a string or a list): a tenth of a unit per byte. */
const traversal = (bytes: number): number => Math.ceil(bytes / 10);

type Node = { readonly op: string; readonly args: unknown };

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && 'op' in value && typeof value.op === 'string';

/** The comprehension macros: their body runs once per element of their receiver. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** Functions whose result is as large as their receiver (or first argument), traversing it once. */
const COPYING = new Set([
  'lowerAscii',
  'upperAscii',
  'trim',
  'substring',
  'charAt',
  'string',
  'bytes',
  'reverse',
  'join',
  'format',
  'quote',
  'base64.encode',
  'base64.decode',
]);

/** Variables bound by comprehensions, with the shape of one element. */
type Scope = ReadonlyMap<string, Shape>;

const sum = (estimates: ReadonlyArray<Estimate>): number => estimates.reduce((total, { cost }) => total + cost, 0);

const largest = (estimates: ReadonlyArray<Estimate>): Shape =>
  estimates.reduce<Shape>(
    (shape, next) => ({
      bytes: Math.max(shape.bytes, next.shape.bytes),
      count: Math.max(shape.count, next.shape.count),
    }),
    { bytes: 0, count: 0 },
  );

/** `self.a.b` as `['a', 'b']`, or undefined when `node` is not a field chain rooted at `self`. */
const selfPath = (node: unknown, scope: Scope): ReadonlyArray<string> | undefined => {
  if (!isNode(node)) return undefined;
  if (node.op === 'id') return node.args === 'self' && !scope.has('self') ? [] : undefined;
  if ((node.op === '.' || node.op === '.?') && Array.isArray(node.args) && typeof node.args[1] === 'string') {
    const parent = selfPath(node.args[0], scope);
    return parent === undefined ? undefined : [...parent, node.args[1]];
  }
  return undefined;
};

/** One element of a value of `shape`: at most as large as the whole. */
const elementOf = (shape: Shape): Shape => ({ bytes: shape.bytes, count: shape.bytes });

/** The smallest element: what every element of a range costs at least. */
const SMALLEST: Shape = { bytes: 1, count: 1 };

/**
 * `range.all(x, body)` and the other macros: the body once per element, with `x` bound to one.
 * The elements share the range's bytes: the body's cost grows with its element's size (a
 * polynomial with positive coefficients, so convex), and such a sum over elements whose sizes add
 * up to the range's is at most the body over the whole range once plus the body over the smallest
 * element for each of the others. So `list.all(c, c.name.startsWith('x'))` costs a traversal
 * of the list, not its length times its size.
 */
const comprehension = (name: string, args: ReadonlyArray<unknown>, range: Estimate, sizes: Sizes, scope: Scope) => {
  const [variable, ...steps] = args;
  const bound = isNode(variable) && typeof variable.args === 'string' ? variable.args : '';
  const body = (element: Shape): ReadonlyArray<Estimate> =>
    steps.map((step) => estimateNode(step, sizes, new Map(scope).set(bound, element)));
  const whole = body(elementOf(range.shape));
  const smallest = body(SMALLEST);
  const iterations = range.shape.count;
  const cost = range.cost + iterations * (1 + sum(smallest)) + sum(whole);
  const built = (whole.at(-1)?.shape.bytes ?? 1) + iterations * (smallest.at(-1)?.shape.bytes ?? 1);
  const shape: Shape = name === 'map' ? { bytes: built, count: iterations } : name === 'filter' ? range.shape : SCALAR;
  return { cost, shape };
};

/** A call of `name` on `receiver` (undefined for a global call) with `args`. */
const call = (name: string, receiver: Estimate | undefined, args: ReadonlyArray<Estimate>): Estimate => {
  const operands = receiver === undefined ? args : [receiver, ...args];
  const base = 1 + sum(operands);
  const first = operands[0]?.shape ?? SCALAR;
  if (name === 'size' || name === 'has' || name === 'type' || name === 'dyn') return { cost: base, shape: SCALAR };
  if (name === 'split') return { cost: base + first.bytes, shape: { bytes: first.bytes * 2, count: first.bytes } };
  if (name === 'replace') {
    const grows = Math.max(1, args[1]?.shape.bytes ?? 1);
    const bytes = first.bytes * grows;
    return { cost: base + traversal(bytes), shape: { bytes, count: bytes } };
  }
  if (COPYING.has(name)) return { cost: base + traversal(first.bytes), shape: first };
  // A prefix or suffix is compared, not the whole receiver.
  if (name === 'startsWith' || name === 'endsWith')
    return { cost: base + traversal(args[0]?.shape.bytes ?? 0), shape: SCALAR };
  // contains, startsWith, endsWith, indexOf, conversions (int, duration, timestamp…), and any other: one traversal.
  return { cost: base + traversal(largest(operands).bytes), shape: SCALAR };
};

/** `a + b` concatenates strings and lists; `a == b` and the others compare or compute. */
const binary = (op: string, left: Estimate, right: Estimate): Estimate => {
  const cost = 1 + left.cost + right.cost;
  if (op === '+') {
    const bytes = left.shape.bytes + right.shape.bytes;
    return { cost: cost + traversal(bytes), shape: { bytes, count: left.shape.count + right.shape.count } };
  }
  if (op === 'in') return { cost: cost + traversal(right.shape.bytes) + right.shape.count, shape: SCALAR };
  return { cost: cost + traversal(Math.min(left.shape.bytes, right.shape.bytes)), shape: SCALAR };
};

const estimateList = (nodes: ReadonlyArray<unknown>, sizes: Sizes, scope: Scope): ReadonlyArray<Estimate> =>
  nodes.map((node) => estimateNode(node, sizes, scope));

/** A receiver call: a comprehension macro, or a function of its receiver. */
const receiverCall = (args: ReadonlyArray<unknown>, sizes: Sizes, scope: Scope): Estimate => {
  const [name, receiver, rest] = args;
  const callArgs = Array.isArray(rest) ? rest : [];
  const target = estimateNode(receiver, sizes, scope);
  if (typeof name === 'string' && COMPREHENSIONS.has(name) && callArgs.length >= 2)
    return comprehension(name, callArgs, target, sizes, scope);
  return call(String(name), target, estimateList(callArgs, sizes, scope));
};

/** A field read: from `self`, the oracle's shape; from anything else, at most the whole. */
const select = (node: Node, args: ReadonlyArray<unknown>, sizes: Sizes, scope: Scope): Estimate => {
  const path = selfPath(node, scope);
  if (path !== undefined) return { cost: 1, shape: sizes(path) };
  const parent = estimateNode(args[0], sizes, scope);
  return { cost: 1 + parent.cost, shape: elementOf(parent.shape) };
};

/** The estimate of one syntax-tree node (the library's AST: `op` and `args`). */
const estimateNode = (node: unknown, sizes: Sizes, scope: Scope): Estimate => {
  if (!isNode(node)) return { cost: 0, shape: SCALAR };
  const args: ReadonlyArray<unknown> = Array.isArray(node.args) ? node.args : [node.args];
  switch (node.op) {
    case 'value':
      return {
        cost: 0,
        shape: typeof node.args === 'string' ? { bytes: node.args.length, count: node.args.length } : SCALAR,
      };
    case 'id':
      return { cost: 1, shape: typeof node.args === 'string' ? (scope.get(node.args) ?? sizes([])) : SCALAR };
    case '.':
    case '.?':
      return select(node, args, sizes, scope);
    case '[]':
    case '[?]': {
      const [container, index] = estimateList(args, sizes, scope);
      return { cost: 1 + sum([container ?? ZERO, index ?? ZERO]), shape: elementOf((container ?? ZERO).shape) };
    }
    case 'rcall':
      return receiverCall(args, sizes, scope);
    case 'call': {
      const callArgs = Array.isArray(args[1]) ? args[1] : [];
      return call(String(args[0]), undefined, estimateList(callArgs, sizes, scope));
    }
    case 'list':
    case 'map': {
      const items = estimateList(
        args.flatMap((item): ReadonlyArray<unknown> => (Array.isArray(item) ? item : [item])),
        sizes,
        scope,
      );
      const bytes = items.reduce((total, item) => total + item.shape.bytes + 1, 2);
      return { cost: 1 + sum(items), shape: { bytes, count: args.length } };
    }
    default:
      return operator(node.op, estimateList(args, sizes, scope));
  }
};

const ZERO: Estimate = { cost: 0, shape: { bytes: 0, count: 0 } };

/** Operators: `a op b`, `!a`, `-a`, `c ? a : b`, `a && b`. */
const operator = (op: string, operands: ReadonlyArray<Estimate>): Estimate => {
  const [left, right] = operands;
  if (operands.length === 2 && left !== undefined && right !== undefined && op !== '&&' && op !== '||')
    return binary(op, left, right);
  return { cost: 1 + sum(operands), shape: op === '?:' ? largest(operands.slice(1)) : largest(operands) };
};

/** The cost of evaluating the expression whose syntax tree is `ast`, with `self`'s values as `sizes` says. */
export const estimateCost = (ast: unknown, sizes: Sizes): Estimate => estimateNode(ast, sizes, new Map());
