/**
 * Parses an input (multi-document YAML, or JSON, which YAML reads too) into JSON documents that
 * remember where they came from, so every later error can name file, line and column.
 */
import * as E from 'fp-ts/lib/Either.js';
import { LineCounter, parseAllDocuments, type Document as YamlDocument, type YAMLError } from 'yaml';
import { showPath, type JsonValue, type Path } from '../../../core/internal.js';
import { inputError, type CliError, type Location } from '../cli-error.js';
import type { InputLimits } from './limits.js';
import { offsetOf } from './locate.js';
import { duplicateKeyErrors } from './duplicate-keys.js';
import type { Source } from './source.js';
import { looksLikeJson, readJsonText } from './json-text.js';
import { toJson } from './to-json.js';
import { checkText, lineColumnOf } from '../../yaml/nesting.js';

/** One parsed document. */
export type Document = {
  readonly file: string;
  /** 1-based position of the document in its file. */
  readonly index: number;
  readonly value: JsonValue;
  /** Where a path of this document is written (its nearest existing ancestor when missing). */
  readonly locate: (path: Path) => Location;
};

/**
 * Every non-empty document of `source`, or every syntax problem found (each with line:col).
 * Errors: malformed YAML, duplicate keys, alias bombs, excessive nesting or size, non-JSON values.
 */
export const parseDocuments = (
  source: Source,
  limits: InputLimits,
): E.Either<ReadonlyArray<CliError>, ReadonlyArray<Document>> => {
  const json = looksLikeJson(source.text) ? readJsonText(source.text, limits) : undefined;
  if (json !== undefined) return E.right([jsonDocument(source, json.value)]);
  // Twice the limit: only keeps the parser safe; the exact limit is checked on the values, with the path.
  const within = checkText(source.text, { maxBytes: limits.maxBytes, maxDepth: limits.maxDepth * 2 });
  if (E.isLeft(within)) {
    const what =
      within.left.offset === 0
        ? within.left.message
        : `the document nests too deeply to parse (more than ${limits.maxDepth * 2} levels): Kubernetes objects nest far less, check the file`;
    return E.left([
      inputError(what, {
        location: {
          file: source.name,
          document: documentAt(source.text, within.left.offset),
          ...lineColumnOf(source.text, within.left.offset),
        },
      }),
    ]);
  }
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(source.text, {
    lineCounter,
    prettyErrors: false,
    merge: true,
    // Checked after parsing in one pass (duplicate-keys.ts): the library's check is quadratic.
    uniqueKeys: false,
    logLevel: 'silent',
  });
  const at = (index: number, offset: number): Location => {
    const position = lineCounter.linePos(offset);
    return { file: source.name, document: index, line: position.line, column: position.col };
  };
  const results = parsed.map((document, i) => readDocument(document, i + 1, limits, at, source.text));
  const errors = results.flatMap((result) => (E.isLeft(result) ? result.left : []));
  if (errors.length > 0) return E.left(errors);
  return E.right(results.flatMap((result) => (E.isRight(result) && result.right !== undefined ? [result.right] : [])));
};

type At = (index: number, offset: number) => Location;

/**
 * The one document of a JSON input read by the JSON parser. Its positions come from the YAML
 * parser, run only when an error needs one (most inputs never do).
 */
const jsonDocument = (source: Source, value: JsonValue): Document => {
  let located: { readonly document: YamlDocument.Parsed; readonly lines: LineCounter } | undefined;
  const locate = (path: Path): Location => {
    if (located === undefined) {
      const lines = new LineCounter();
      const [document] = parseAllDocuments(source.text, {
        lineCounter: lines,
        prettyErrors: false,
        logLevel: 'silent',
      });
      if (document === undefined) return { file: source.name, document: 1 };
      located = { document, lines };
    }
    const position = located.lines.linePos(offsetOf(located.document, path));
    return { file: source.name, document: 1, line: position.line, column: position.col };
  };
  return { file: source.name, index: 1, value, locate };
};

/**
 * The 1-based number of the document an offset lies in (`---` starts one; one before any content does not count twice).
 */
const documentAt = (text: string, offset: number): number => {
  const before = text.slice(0, offset);
  const markers = [...before.matchAll(/^---(?=[ \t\r\n]|$)/gm)];
  const first = markers[0];
  const leadingMarker =
    first !== undefined &&
    before
      .slice(0, first.index)
      .split('\n')
      .every((line) => /^\s*(#.*|%.*)?$/.test(line));
  return 1 + markers.length - (leadingMarker ? 1 : 0);
};

/** A document's value, or every syntax problem in it (a file with three duplicate keys gets three lines). */
const readDocument = (
  document: YamlDocument.Parsed,
  index: number,
  limits: InputLimits,
  at: At,
  text: string,
): E.Either<ReadonlyArray<CliError>, Document | undefined> => {
  const problems = document.errors.length > 0 ? document.errors : duplicateKeyErrors(document);
  if (problems.length > 0)
    return E.left(distinctProblems(problems).map((syntax) => syntaxError(syntax, index, at, text)));
  let value: unknown;
  try {
    value = document.toJS({ mapAsMap: true, maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    return E.left([conversionError(error, index, at(index, document.range[0]))]);
  }
  const json = toJson(value, limits);
  if (E.isLeft(json))
    return E.left([
      inputError(json.left.message, {
        location: at(index, offsetOf(document, json.left.path)),
        path: showPath(json.left.path),
      }),
    ]);
  if (json.right === null) return E.right(undefined); // an empty document (`---` at the end, only comments): kubectl skips these too
  return E.right({
    file: at(index, 0).file,
    index,
    value: json.right,
    locate: (path) => at(index, offsetOf(document, path)),
  });
};

/**
 * One error per place, and one for a document nested too deeply: the parser reports an unclosed
 * bracket once per enclosing collection and stack exhaustion once per level, which are one problem.
 */
const distinctProblems = (errors: ReadonlyArray<YAMLError>): ReadonlyArray<YAMLError> => {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const place = error.code === 'RESOURCE_EXHAUSTION' ? error.code : String(error.pos[0]);
    if (seen.has(place)) return false;
    seen.add(place);
    return true;
  });
};

const syntaxError = (error: YAMLError, index: number, at: At, text: string): CliError => {
  // The error points at the repeated key: its plain or quoted scalar (printed only when it looks like a key).
  const key = /^["']?([\w.\/-]{1,100})["']?\s*:/.exec(text.slice(error.pos[0], error.pos[0] + 110))?.[1];
  const what =
    error.code === 'RESOURCE_EXHAUSTION'
      ? 'the document nests too deeply to parse: Kubernetes objects nest far less, check the file'
      : error.code === 'DUPLICATE_KEY' && key !== undefined
        ? `malformed YAML: duplicate key ${key}: a key may appear once per map, remove one`
        : `malformed YAML: ${error.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '')}`;
  return inputError(what, { location: at(index, error.pos[0]) });
};

const conversionError = (error: unknown, index: number, location: Location): CliError => {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError)
    return inputError('the document nests too deeply to read: Kubernetes objects nest far less, check the file', {
      location,
    });
  if (/alias/i.test(message))
    return inputError(
      'too many YAML alias expansions (a "billion laughs" document?): expand the aliases by hand or remove them',
      { location },
    );
  return inputError(`cannot read the document: ${message}`, { location });
};
