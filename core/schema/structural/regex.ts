/**
 * Regular expressions as the API server runs a CRD's `pattern` (Go's regexp, RE2 syntax): an
 * unanchored search in time linear in the input. JavaScript's RegExp backtracks and can take
 * exponential time on a tenant's pattern (`(a+)+$`), so patterns are compiled here to a
 * Thompson NFA and simulated state-set by state-set (Pike): at most (input length) × (program
 * size) steps, whatever the pattern. Constructs RE2 refuses (back-references, look-around) are
 * refused here too. The program size is bounded (counted repetition is expanded).
 * docs/decisions/0024-custom-resource-schema.md.
 */
import * as E from 'fp-ts/lib/Either.js';

/** Longest program a pattern may compile to (RE2 bounds repetition at 1000; this bounds the product). */
export const MAX_REGEX_PROGRAM = 20_000;

type CharTest = (code: number) => boolean;
type Assertion = 'lineStart' | 'lineEnd' | 'textStart' | 'textEnd' | 'word' | 'notWord';

type Node =
  | { readonly t: 'char'; readonly test: CharTest }
  | { readonly t: 'assert'; readonly a: Assertion }
  | { readonly t: 'cat'; readonly items: ReadonlyArray<Node> }
  | { readonly t: 'alt'; readonly items: ReadonlyArray<Node> }
  | { readonly t: 'repeat'; readonly item: Node; readonly min: number; readonly max: number };

type Flags = { readonly i: boolean; readonly s: boolean; readonly m: boolean };

/** Parser state over the pattern's code points. */
type Parser = { readonly chars: ReadonlyArray<string>; at: number; flags: Flags };

class RegexSyntaxError extends Error {}

const fail = (message: string): never => {
  throw new RegexSyntaxError(message);
};

const code = (char: string): number => char.codePointAt(0) ?? 0;

const EMPTY: Node = { t: 'cat', items: [] };

const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

const PERL: Readonly<Record<string, CharTest>> = {
  d: (c) => c >= 48 && c <= 57,
  w: isWordCode,
  s: (c) => c === 32 || (c >= 9 && c <= 10) || c === 12 || c === 13,
};

const POSIX: Readonly<Record<string, CharTest>> = {
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  digit: (c) => c >= 48 && c <= 57,
  alnum: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  upper: (c) => c >= 65 && c <= 90,
  lower: (c) => c >= 97 && c <= 122,
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102),
  word: isWordCode,
  punct: (c) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126),
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c < 32 || c === 127,
  print: (c) => c >= 32 && c <= 126,
  graph: (c) => c >= 33 && c <= 126,
  ascii: (c) => c <= 127,
};

const negated =
  (test: CharTest): CharTest =>
  (c) =>
    !test(c);

/**
 * `\p{Greek}`, `\pL`: a single code point tested by the engine's own Unicode tables (no backtracking on one character).
 */
const unicodeClass = (name: string): CharTest => {
  let test: RegExp | undefined;
  try {
    test = new RegExp(`^\\p{${name === 'Any' ? 'Any' : name.length <= 2 ? name : `Script=${name}`}}$`, 'u');
  } catch {
    fail(`invalid character class range: \\p{${name}}`);
  }
  return (c) => test?.test(String.fromCodePoint(c)) === true;
};

const peek = (p: Parser, ahead = 0): string | undefined => p.chars[p.at + ahead];

const next = (p: Parser): string => {
  const char = p.chars[p.at];
  if (char === undefined) fail('trailing backslash at end of expression');
  p.at += 1;
  return char ?? '';
};

const hexDigits = (p: Parser, count: number): number => {
  let text = '';
  for (let i = 0; i < count; i++) text += next(p);
  if (!/^[0-9a-fA-F]+$/.test(text)) fail(`invalid escape sequence: \\x${text}`);
  return parseInt(text, 16);
};

const hexEscape = (p: Parser): number => {
  if (peek(p) !== '{') return hexDigits(p, 2);
  p.at += 1;
  let text = '';
  while (peek(p) !== '}') text += next(p);
  p.at += 1;
  const value = parseInt(text, 16);
  if (!/^[0-9a-fA-F]{1,6}$/.test(text) || value > 0x10ffff) fail(`invalid escape sequence: \\x{${text}}`);
  return value;
};

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };

/** An escape that stands for one character or a class; `undefined` for an assertion (handled by the caller). */
const escapeTest = (p: Parser, inClass: boolean): CharTest => {
  const char = next(p);
  const perl = PERL[char.toLowerCase()];
  if (perl !== undefined) return char === char.toLowerCase() ? perl : negated(perl);
  if (char === 'p' || char === 'P') {
    const name = peek(p) === '{' ? braced(p) : next(p);
    const test = unicodeClass(name);
    return char === 'p' ? test : negated(test);
  }
  const value = escapeCode(p, char, inClass);
  return (c) => c === value;
};

const braced = (p: Parser): string => {
  p.at += 1;
  let name = '';
  while (peek(p) !== '}') name += next(p);
  p.at += 1;
  return name;
};

const escapeCode = (p: Parser, char: string, inClass: boolean): number => {
  const simple = SIMPLE_ESCAPES[char];
  if (simple !== undefined) return simple;
  if (char === 'x') return hexEscape(p);
  if (/^[0-7]$/.test(char) && (char === '0' || inClass)) {
    let text = char;
    while (text.length < 3 && /^[0-7]$/.test(peek(p) ?? '')) text += next(p);
    return parseInt(text, 8);
  }
  if (/^[1-9]$/.test(char)) fail(`invalid escape sequence: \\${char} (back-references are not supported)`);
  if (/^[A-Za-z0-9]$/.test(char)) fail(`invalid escape sequence: \\${char}`);
  return code(char);
};

/** One item of a bracket class: a character, a range, a Perl or POSIX class. */
const classItem = (p: Parser): CharTest => {
  if (peek(p) === '[' && peek(p, 1) === ':') {
    const end = p.chars.indexOf(']', p.at + 2);
    const text = p.chars.slice(p.at + 2, end).join('');
    const name = text.replace(/^\^/, '').replace(/:$/, '');
    const test = POSIX[name];
    if (end < 0 || !text.endsWith(':') || test === undefined) fail(`invalid character class range: [${text}]`);
    p.at = end + 1;
    return test === undefined ? () => false : text.startsWith('^') ? negated(test) : test;
  }
  const low = peek(p) === '\\' ? (p.at++, escapeTest(p, true)) : singleCode(code(next(p)));
  if (peek(p) !== '-' || peek(p, 1) === ']' || peek(p, 1) === undefined) return low;
  p.at += 1;
  const from = p.chars[p.at - 2];
  const to = peek(p) === '\\' ? (p.at++, escapeCode(p, next(p), true)) : code(next(p));
  const start = from === undefined ? 0 : code(from);
  if (to < start) fail(`invalid character class range: ${String.fromCodePoint(start)}-${String.fromCodePoint(to)}`);
  return (c) => c >= start && c <= to;
};

const singleCode =
  (value: number): CharTest =>
  (c) =>
    c === value;

const bracketClass = (p: Parser): CharTest => {
  const negate = peek(p) === '^';
  if (negate) p.at += 1;
  const tests: CharTest[] = [];
  if (peek(p) === ']') tests.push(singleCode(code(next(p))));
  while (peek(p) !== ']') {
    if (peek(p) === undefined) fail('missing closing ]');
    tests.push(classItem(p));
  }
  p.at += 1;
  const any: CharTest = (c) => tests.some((test) => test(c));
  return negate ? negated(any) : any;
};

const folded = (test: CharTest, flags: Flags): CharTest => {
  if (!flags.i) return test;
  return (c) => {
    const char = String.fromCodePoint(c);
    return test(c) || test(code(char.toLowerCase())) || test(code(char.toUpperCase()));
  };
};

const charNode = (test: CharTest, flags: Flags): Node => ({ t: 'char', test: folded(test, flags) });

const ASSERTION_ESCAPES: Readonly<Record<string, Assertion>> = {
  b: 'word',
  B: 'notWord',
  A: 'textStart',
  z: 'textEnd',
};

/** One atom: a character, class, group, assertion, or a quoted literal run. */
const atom = (p: Parser): Node => {
  const char = next(p);
  if (char === '(') return group(p);
  if (char === '[') return charNode(bracketClass(p), p.flags);
  if (char === '.') return charNode(p.flags.s ? () => true : (c) => c !== 10, p.flags);
  if (char === '^') return { t: 'assert', a: p.flags.m ? 'lineStart' : 'textStart' };
  if (char === '$') return { t: 'assert', a: p.flags.m ? 'lineEnd' : 'textEnd' };
  if (char === '*' || char === '+' || char === '?') fail(`missing argument to repetition operator: ${char}`);
  if (char !== '\\') return charNode(singleCode(code(char)), p.flags);
  const assertion = ASSERTION_ESCAPES[peek(p) ?? ''];
  if (assertion !== undefined) return (p.at++, { t: 'assert', a: assertion });
  if (peek(p) === 'Q') return quoted(p);
  return charNode(escapeTest(p, false), p.flags);
};

const quoted = (p: Parser): Node => {
  p.at += 1;
  const items: Node[] = [];
  while (peek(p) !== undefined && !(peek(p) === '\\' && peek(p, 1) === 'E'))
    items.push(charNode(singleCode(code(next(p))), p.flags));
  if (peek(p) !== undefined) p.at += 2;
  return { t: 'cat', items };
};

const withFlags = (flags: Flags, text: string): Flags => {
  const [on = '', off = ''] = text.split('-');
  if (!/^[imsU]*$/.test(on + off)) fail(`invalid or unsupported Perl syntax: (?${text}`);
  const set = (name: 'i' | 'm' | 's'): boolean => (off.includes(name) ? false : on.includes(name) || flags[name]);
  return { i: set('i'), m: set('m'), s: set('s') };
};

/** After `(`: a capturing, named or non-capturing group, or a flag change. */
const group = (p: Parser): Node => {
  const outer = p.flags;
  if (peek(p) === '?') {
    p.at += 1;
    const named = peek(p) === 'P' ? (p.at++, true) : false;
    if (peek(p) === '<' && (named || (peek(p, 1) !== '=' && peek(p, 1) !== '!'))) {
      const end = p.chars.indexOf('>', p.at);
      if (end < 0) fail('invalid named capture');
      p.at = end + 1;
    } else {
      let text = '';
      while (peek(p) !== ':' && peek(p) !== ')') text += next(p);
      p.flags = withFlags(p.flags, text);
      if (next(p) === ')') return EMPTY; // (?i): applies to the rest of the enclosing group
    }
  }
  const inner = alternation(p);
  if (peek(p) !== ')') fail('missing closing )');
  p.at += 1;
  p.flags = outer;
  return inner;
};

const MAX_REPEAT = 1000;

const repeatBounds = (p: Parser): { readonly min: number; readonly max: number } | undefined => {
  const char = peek(p);
  if (char === '*') return (p.at++, { min: 0, max: Infinity });
  if (char === '+') return (p.at++, { min: 1, max: Infinity });
  if (char === '?') return (p.at++, { min: 0, max: 1 });
  if (char !== '{') return undefined;
  const rest = p.chars.slice(p.at, p.at + 24).join('');
  const match = /^\{(\d+)(,(\d*))?\}/.exec(rest);
  if (match === null) return undefined; // a literal `{`, as RE2 reads it
  p.at += match[0].length;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT) || max < min)
    fail(`invalid repeat count: ${match[0]}`);
  return { min, max };
};

const sequence = (p: Parser): Node => {
  const items: Node[] = [];
  while (peek(p) !== undefined && peek(p) !== '|' && peek(p) !== ')') {
    const item = atom(p);
    const bounds = repeatBounds(p);
    if (bounds === undefined) {
      items.push(item);
      continue;
    }
    if (peek(p) === '?') p.at += 1; // lazy: the same set of matches
    const after = p.chars.slice(p.at, p.at + 24).join('');
    if (/^([*+?]|\{\d+(,\d*)?\})/.test(after)) fail('invalid nested repetition operator');
    items.push({ t: 'repeat', item, ...bounds });
  }
  return items.length === 1 ? (items[0] ?? EMPTY) : { t: 'cat', items };
};

const alternation = (p: Parser): Node => {
  const items = [sequence(p)];
  while (peek(p) === '|') {
    p.at += 1;
    items.push(sequence(p));
  }
  return items.length === 1 ? (items[0] ?? EMPTY) : { t: 'alt', items };
};

type Instruction =
  | { readonly op: 'char'; readonly test: CharTest }
  | { readonly op: 'assert'; readonly a: Assertion }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { readonly op: 'match' };

const emit = (program: Instruction[], instruction: Instruction): number => {
  if (program.length >= MAX_REGEX_PROGRAM) fail(`expression too large (more than ${MAX_REGEX_PROGRAM} states)`);
  program.push(instruction);
  return program.length - 1;
};

const compileRepeat = (program: Instruction[], node: Node & { t: 'repeat' }): void => {
  for (let i = 0; i < node.min; i++) compileNode(program, node.item);
  if (node.max === Infinity) {
    const split = { op: 'split' as const, x: 0, y: 0 };
    const at = emit(program, split);
    split.x = program.length;
    compileNode(program, node.item);
    emit(program, { op: 'jmp', x: at });
    split.y = program.length;
    return;
  }
  const splits: Array<{ op: 'split'; x: number; y: number }> = [];
  for (let i = node.min; i < node.max; i++) {
    const split = { op: 'split' as const, x: 0, y: 0 };
    emit(program, split);
    splits.push(split);
    split.x = program.length;
    compileNode(program, node.item);
  }
  for (const split of splits) split.y = program.length;
};

const compileNode = (program: Instruction[], node: Node): void => {
  if (node.t === 'char') emit(program, { op: 'char', test: node.test });
  else if (node.t === 'assert') emit(program, { op: 'assert', a: node.a });
  else if (node.t === 'cat') node.items.forEach((item) => compileNode(program, item));
  else if (node.t === 'repeat') compileRepeat(program, node);
  else {
    const jumps: Array<{ op: 'jmp'; x: number }> = [];
    node.items.forEach((item, index) => {
      const split = { op: 'split' as const, x: 0, y: 0 };
      if (index < node.items.length - 1) emit(program, split);
      split.x = program.length;
      compileNode(program, item);
      if (index < node.items.length - 1) {
        const jump = { op: 'jmp' as const, x: 0 };
        emit(program, jump);
        jumps.push(jump);
        split.y = program.length;
      }
    });
    for (const jump of jumps) jump.x = program.length;
  }
};

/** A compiled pattern: `test` searches the input anywhere, as Go's `MatchString` does. */
export type SafeRegex = { readonly source: string; readonly test: (input: string) => boolean };

/** Compiles an RE2 pattern, or says why it is not one (Go's wording where it has one). */
export const compileRegex = (source: string): E.Either<string, SafeRegex> => {
  const parser: Parser = { chars: Array.from(source), at: 0, flags: { i: false, m: false, s: false } };
  const program: Instruction[] = [];
  try {
    const node = alternation(parser);
    if (parser.at < parser.chars.length) fail('unexpected ): `' + source + '`');
    compileNode(program, node);
    emit(program, { op: 'match' });
  } catch (error) {
    if (error instanceof RegexSyntaxError) return E.left(error.message);
    throw error;
  }
  return E.right({ source, test: (input) => run(program, Array.from(input, code)) });
};

const holds = (a: Assertion, input: ReadonlyArray<number>, at: number): boolean => {
  const before = input[at - 1];
  const after = input[at];
  switch (a) {
    case 'textStart':
      return at === 0;
    case 'textEnd':
      return at === input.length;
    case 'lineStart':
      return at === 0 || before === 10;
    case 'lineEnd':
      return at === input.length || after === 10;
    default: {
      const boundary = (before !== undefined && isWordCode(before)) !== (after !== undefined && isWordCode(after));
      return a === 'word' ? boundary : !boundary;
    }
  }
};

/** Adds a state and everything reachable from it without reading (a depth-first closure, each state once per step). */
const addState = (
  program: ReadonlyArray<Instruction>,
  list: number[],
  seen: Uint32Array,
  generation: number,
  start: number,
  input: ReadonlyArray<number>,
  at: number,
): void => {
  const stack = [start];
  while (stack.length > 0) {
    const pc = stack.pop() ?? 0;
    if (seen[pc] === generation) continue;
    seen[pc] = generation;
    const instruction = program[pc];
    if (instruction === undefined) continue;
    if (instruction.op === 'jmp') stack.push(instruction.x);
    else if (instruction.op === 'split') stack.push(instruction.y, instruction.x);
    else if (instruction.op === 'assert') {
      if (holds(instruction.a, input, at)) stack.push(pc + 1);
    } else list.push(pc);
  }
};

/** The Pike simulation: one set of states per input position, a new thread started at every position. */
const run = (program: ReadonlyArray<Instruction>, input: ReadonlyArray<number>): boolean => {
  const seen = new Uint32Array(program.length);
  let generation = 1;
  let current: number[] = [];
  for (let at = 0; at <= input.length; at++) {
    addState(program, current, seen, generation, 0, input, at);
    const following: number[] = [];
    generation += 1;
    for (const pc of current) {
      const instruction = program[pc];
      if (instruction?.op === 'match') return true;
      const c = input[at];
      if (instruction?.op === 'char' && c !== undefined && instruction.test(c))
        addState(program, following, seen, generation, pc + 1, input, at + 1);
    }
    current = following;
  }
  return current.some((pc) => program[pc]?.op === 'match');
};
