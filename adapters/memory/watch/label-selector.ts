/**
 * Kubernetes label selectors (apimachinery `labels.Parse`): `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>n`, `k<n`; comma means AND.
 */
import * as E from 'fp-ts/lib/Either.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import { isLabelValue, isQualifiedName } from '../typing/index.js';

export type Operator = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
export type Requirement = { readonly key: string; readonly operator: Operator; readonly values: ReadonlyArray<string> };
export type Selector = ReadonlyArray<Requirement>;

type Token = { readonly kind: 'word' | 'op' | 'open' | 'close' | 'comma'; readonly text: string };

const tokenPattern = /\s*(?:(==|!=|=|!|>|<)|(\()|(\))|(,)|([^\s=!<>(),]+))/y;

const tokenize = (text: string): ReadonlyArray<Token> | string => {
  const tokens: Token[] = [];
  tokenPattern.lastIndex = 0;
  while (tokenPattern.lastIndex < text.length) {
    if (text.slice(tokenPattern.lastIndex).trim() === '') break;
    const match = tokenPattern.exec(text);
    if (match === null) return `unexpected character at ${tokenPattern.lastIndex}`;
    const [, op, open, close, comma, word] = match;
    if (op !== undefined) tokens.push({ kind: 'op', text: op });
    else if (open !== undefined) tokens.push({ kind: 'open', text: open });
    else if (close !== undefined) tokens.push({ kind: 'close', text: close });
    else if (comma !== undefined) tokens.push({ kind: 'comma', text: comma });
    else tokens.push({ kind: 'word', text: word ?? '' });
  }
  return tokens;
};

/** A cursor over the tokens; parse functions return the requirement or a message. */
class Cursor {
  private index = 0;
  constructor(private readonly tokens: ReadonlyArray<Token>) {}
  peek(): Token | undefined {
    return this.tokens[this.index];
  }
  next(): Token | undefined {
    return this.tokens[this.index++];
  }
  done(): boolean {
    return this.index >= this.tokens.length;
  }
}

const badSelector = (selector: string, reason: string): ClusterError =>
  clusterError('BadRequest', `unable to parse requirement: invalid label selector "${selector}": ${reason}`);

/** Parses a selector; the empty selector matches everything. */
export const parseSelector = (text: string | undefined): E.Either<ClusterError, Selector> => {
  if (text === undefined || text.trim() === '') return E.right([]);
  const tokens = tokenize(text);
  if (typeof tokens === 'string') return E.left(badSelector(text, tokens));
  const cursor = new Cursor(tokens);
  const requirements: Requirement[] = [];
  while (!cursor.done()) {
    const requirement = parseRequirement(cursor);
    if (typeof requirement === 'string') return E.left(badSelector(text, requirement));
    requirements.push(requirement);
    const separator = cursor.next();
    if (separator !== undefined && separator.kind !== 'comma')
      return E.left(badSelector(text, `expected "," but got "${separator.text}"`));
    if (separator !== undefined && cursor.done()) return E.left(badSelector(text, 'trailing ","'));
  }
  return E.right(requirements);
};

const parseRequirement = (cursor: Cursor): Requirement | string => {
  const first = cursor.next();
  if (first?.kind === 'op' && first.text === '!') {
    const key = cursor.next();
    return key?.kind === 'word' ? checked({ key: key.text, operator: '!', values: [] }) : 'expected a key after "!"';
  }
  if (first?.kind !== 'word') return `expected a key but got "${first?.text ?? 'end of input'}"`;
  const operator = cursor.peek();
  if (operator === undefined || operator.kind === 'comma')
    return checked({ key: first.text, operator: 'exists', values: [] });
  cursor.next();
  if (operator.kind === 'word' && (operator.text === 'in' || operator.text === 'notin')) {
    const values = parseSet(cursor);
    return typeof values === 'string' ? values : checked({ key: first.text, operator: operator.text, values });
  }
  if (operator.kind !== 'op' || operator.text === '!') return `unexpected "${operator.text}" after key "${first.text}"`;
  const value = cursor.peek()?.kind === 'word' ? (cursor.next()?.text ?? '') : '';
  return checked({ key: first.text, operator: operatorFor(operator.text), values: [value] });
};

const operatorFor = (text: string): Operator =>
  text === '!=' ? 'notin' : text === '>' ? 'gt' : text === '<' ? 'lt' : 'in';

const parseSet = (cursor: Cursor): ReadonlyArray<string> | string => {
  if (cursor.next()?.kind !== 'open') return 'expected "(" after in/notin';
  const values: string[] = [];
  for (;;) {
    const token = cursor.next();
    if (token === undefined) return 'unterminated value set';
    if (token.kind === 'close') break;
    if (token.kind === 'word') values.push(token.text);
    else if (token.kind !== 'comma') return `unexpected "${token.text}" in value set`;
  }
  return values.length === 0 ? "for 'in', 'notin' operators, values set can't be empty" : values;
};

const checked = (requirement: Requirement): Requirement | string => {
  if (!isQualifiedName(requirement.key)) return `invalid label key "${requirement.key}"`;
  if (
    (requirement.operator === 'gt' || requirement.operator === 'lt') &&
    !requirement.values.every((v) => /^-?\d+$/.test(v))
  ) {
    return `for 'Gt', 'Lt' operators, the value must be an integer`;
  }
  const bad = requirement.values.find((value) => !isLabelValue(value));
  return bad === undefined ? requirement : `invalid label value "${bad}"`;
};

/** Whether `labels` satisfy every requirement. */
export const matchesSelector = (selector: Selector, labels: Readonly<Record<string, string>> | undefined): boolean =>
  selector.every((requirement) => matches(requirement, labels ?? {}));

const matches = ({ key, operator, values }: Requirement, labels: Readonly<Record<string, string>>): boolean => {
  const present = Object.prototype.hasOwnProperty.call(labels, key);
  const value = present ? labels[key] : undefined;
  switch (operator) {
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'in':
      return value !== undefined && values.includes(value);
    case 'notin':
      return value === undefined || !values.includes(value);
    case 'gt':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) > Number(values[0]);
    case 'lt':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) < Number(values[0]);
  }
};
