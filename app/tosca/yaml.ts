/** One YAML (or JSON) document parsed into JSON values, errors as `line L, column C: message`. */
import * as E from 'fp-ts/lib/Either.js';
import { LineCounter, parseDocument } from 'yaml';
import type { JsonValue, ParseDocument } from '../../core/internal.js';
import { checkText, DEFAULT_MAX_DEPTH, lineColumnOf, type TextLimits } from '../yaml/nesting.js';

/** Aliases expand into copies; bounded so a small document cannot explode ("billion laughs"). */
const MAX_ALIAS_COUNT = 100;

/** What one template text may be: the fetch bound (4 MiB), and the nesting every reader accepts. */
export const TEMPLATE_TEXT_LIMITS: TextLimits = { maxBytes: 4 * 1024 * 1024, maxDepth: DEFAULT_MAX_DEPTH };

/**
 * Parses exactly one document, after checking its size and depth on the text (so a nesting bomb
 * is refused before the parser builds it). Errors never quote the source: it may have been
 * fetched from anywhere, and messages end up in the Application's status.
 */
export const parseYamlDocument: ParseDocument = (text) => {
  const lineCounter = new LineCounter();
  const within = checkText(text, TEMPLATE_TEXT_LIMITS);
  if (E.isLeft(within)) return E.left(`${positionOf(text, within.left.offset)}: ${within.left.message}`);
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const [error] = document.errors;
  if (error !== undefined) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    return E.left(`line ${line}, column ${col}: ${error.message.split('\n')[0]}`);
  }
  try {
    // A JSON round trip drops what JSON cannot hold (e.g. .inf becomes null), as the API server would.
    return E.right(JSON.parse(JSON.stringify(document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? null)) as JsonValue);
  } catch (error) {
    return E.left(
      error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable document') : 'unreadable document',
    );
  }
};

const positionOf = (text: string, offset: number): string => {
  const { line, column } = lineColumnOf(text, offset);
  return `line ${line}, column ${column}`;
};
