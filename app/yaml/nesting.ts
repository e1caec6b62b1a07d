/**
 * Depth and size of tenant-written YAML or JSON text, checked *before* a parser builds anything:
 * a 4 MB `[[[[…` or `{"a":{"a":…` makes recursive parsers take gigabytes and block the event loop
 * for many seconds. Every reader of tenant text (CLI input, TOSCA templates, CSAR entries) calls
 * `checkText` first, then parses with the yaml library's own limits.
 */
import * as E from 'fp-ts/lib/Either.js';
import { Lexer } from 'yaml';

export type TextLimits = {
  /** Largest text accepted, in bytes (UTF-8). */
  readonly maxBytes: number;
  /** Deepest nesting of lists and maps accepted (real Kubernetes objects stay far below). */
  readonly maxDepth: number;
};

/** The nesting every reader accepts by default (real Kubernetes objects stay far below). */
export const DEFAULT_MAX_DEPTH = 200;

/** Why a text was refused: where (a character offset into it), and what to say. */
export type TextProblem = { readonly offset: number; readonly message: string };

// Tokens the lexer emits that stand for no source text (document start, scalar follows, flow end, BOM).
const CONTROL = /^[\x02\x18\x1f\ufeff]$/;

/**
 * The text if it is within `limits`, else the first place it goes over.
 * Guarantees: linear in the text's length, stops at the first excess (a nesting bomb is refused
 * after reading about `maxDepth` tokens), builds no tree (the yaml library's lexer, which knows
 * quoting, comments and block scalars, so brackets inside strings count for nothing).
 * The depth found is an upper bound: flow brackets, plus block nodes by the columns they start at
 * (compact `- - - x` nests too); it overcounts by at most one per line, never undercounts.
 */
export const checkText = (text: string, limits: TextLimits): E.Either<TextProblem, string> => {
  // UTF-16 length bounds the UTF-8 size from below, three times it from above: count only when it matters.
  if (
    text.length > limits.maxBytes ||
    (text.length * 3 > limits.maxBytes && Buffer.byteLength(text, 'utf8') > limits.maxBytes)
  ) {
    return E.left({ offset: 0, message: `larger than ${showBytes(limits.maxBytes)}` });
  }
  // The scan counts the scalar at the bottom as a level too: one more than the lists and maps above it.
  const deepest = firstTooDeep(text, limits.maxDepth + 1);
  return deepest === undefined
    ? E.right(text)
    : E.left({
        offset: deepest,
        message: `nested deeper than ${limits.maxDepth} levels: Kubernetes objects nest far less, check the text`,
      });
};

/** The offset where nesting first exceeds `maxDepth`, if it does. */
const firstTooDeep = (text: string, maxDepth: number): number | undefined => {
  const blockColumns: number[] = [];
  let flow = 0;
  let offset = 0;
  let column = 0;
  let blockScalarNext = false;
  const enterBlock = (at: number): void => {
    while ((blockColumns.at(-1) ?? -Infinity) >= at) blockColumns.pop();
    blockColumns.push(at);
  };
  for (const token of new Lexer().lex(text)) {
    const start = column + (token.length - token.trimStart().length);
    if (token === '[' || token === '{') {
      if (flow === 0) enterBlock(start);
      flow += 1;
    } else if (token === ']' || token === '}') {
      flow = Math.max(0, flow - 1);
    } else if (flow === 0 && (token === '-' || token === '?')) {
      enterBlock(start);
    } else if (flow === 0 && (token[0] === '|' || token[0] === '>')) {
      blockScalarNext = true; // its content is one scalar token, whatever its lines look like
    } else if (
      flow === 0 &&
      !CONTROL.test(token) &&
      token.trim() !== '' &&
      token[0] !== '#' &&
      token !== ':' &&
      token !== ','
    ) {
      if (!blockScalarNext) enterBlock(start);
      blockScalarNext = false;
    }
    if (blockColumns.length + flow > maxDepth) return offset;
    offset += CONTROL.test(token) ? 0 : token.length;
    const newline = token.lastIndexOf('\n');
    column = CONTROL.test(token) ? column : newline === -1 ? column + token.length : token.length - newline - 1;
  }
  return undefined;
};

/** The 1-based line and column of a character offset (for messages about a refused text). */
export const lineColumnOf = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
};

const showBytes = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${bytes} bytes`;
