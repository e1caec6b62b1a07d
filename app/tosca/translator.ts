/**
 * The translation step (SPEC step 1): an Application defined by `spec.tosca` (inline or URL) or
 * `spec.csar` (URL) gets its manifest from the template. Never writes `spec`: the result is
 * handed to `plan` as `PlanOptions.translatedManifest`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isJsonArray, isJsonObject, showIssue, translateTemplate, type Application, type JsonValue, type Resource, type ToscaIssue } from '../../core/index.js';
import { csarEntry } from './csar.js';
import { createFetcher, defaultFetchLimits, type Fetcher, type FetcherOptions } from './fetch.js';
import { parseYamlDocument } from './yaml.js';

export type Translation =
  /** The Application has a manifest, or no template: nothing to translate. */
  | { readonly _tag: 'NotNeeded' }
  | { readonly _tag: 'Translated'; readonly manifest: ReadonlyArray<Resource> }
  /** `retryable`: fetching failed in a way that may pass later (network, 5xx, timeout). */
  | { readonly _tag: 'Invalid'; readonly message: string; readonly retryable: boolean };

export type Translator = (application: Application) => Promise<Translation>;

export type TranslatorOptions = FetcherOptions & {
  /** Replaces the fetcher built from the other options (tests). */
  readonly fetcher?: Fetcher;
  /** Translations remembered (default 256). */
  readonly memoEntries?: number;
};

/** Whether an Application's manifest comes from a template: an empty manifest and `tosca` or `csar`. */
export const needsTranslation = (application: Application): boolean => {
  const spec = application.spec as JsonValue;
  if (!isJsonObject(spec)) return false;
  const manifest = spec.manifest;
  const written = isJsonArray(manifest) && manifest.length > 0;
  return !written && (spec.tosca !== undefined || spec.csar !== undefined);
};

/**
 * A translator with its own fetch cache. Equal inputs give the very same manifest array (so the
 * planner's per-spec cache keeps hitting); errors are messages naming the path, for a `Stalled`
 * condition with reason `InvalidTosca`.
 */
export const createToscaTranslator = (options: TranslatorOptions = {}): Translator => {
  const fetcher = options.fetcher ?? createFetcher(options);
  const maxBytes = options.maxBytes ?? defaultFetchLimits.maxBytes;
  const memo = new Map<string, { readonly source: unknown; readonly result: Translation }>();
  const memoised = (key: string, source: unknown, compute: () => Translation): Translation => {
    const hit = memo.get(key);
    if (hit !== undefined && hit.source === source) return hit.result;
    const result = compute();
    memo.delete(key);
    memo.set(key, { source, result });
    while (memo.size > (options.memoEntries ?? 256)) memo.delete(memo.keys().next().value as string);
    return result;
  };
  return async (application) => {
    if (!needsTranslation(application)) return { _tag: 'NotNeeded' };
    const spec = application.spec as { readonly [key: string]: JsonValue };
    const inputs = spec.toscaInputs;
    if (spec.tosca !== undefined && spec.csar !== undefined) return invalid('spec.tosca, spec.csar: give one of them, not both');
    const key = JSON.stringify([spec.tosca ?? null, spec.csar ?? null, inputs ?? null]);
    if (spec.csar !== undefined) return fromCsar(spec.csar, inputs, fetcher, maxBytes, key, memoised);
    const tosca = spec.tosca as JsonValue;
    if (typeof tosca === 'string') return fromUrl(tosca, inputs, fetcher, key, memoised);
    if (!isJsonObject(tosca)) return invalid('spec.tosca: expected a TOSCA template (a mapping) or the URL of one');
    return memoised(key, undefined, () => translated(tosca, inputs, 'spec.tosca'));
  };
};

type Memo = (key: string, source: unknown, compute: () => Translation) => Translation;

const invalid = (message: string, retryable = false): Translation => ({ _tag: 'Invalid', message, retryable });

const translated = (template: JsonValue, inputs: JsonValue | undefined, root: string): Translation => {
  const result = translateTemplate({ template, inputs, parseDocument: parseYamlDocument, root });
  return E.isRight(result) ? { _tag: 'Translated', manifest: result.right } : invalid(showIssues(result.left));
};

const showIssues = (issues: ReadonlyArray<ToscaIssue>): string => issues.map(showIssue).join('; ');

const fromUrl = async (url: string, inputs: JsonValue | undefined, fetcher: Fetcher, key: string, memoised: Memo): Promise<Translation> => {
  const fetched = await fetcher(url);
  const root = `spec.tosca (${url})`;
  if (E.isLeft(fetched)) return invalid(`${root}: ${fetched.left.message}`, fetched.left.retryable);
  // The fetcher hands out the same bytes while they are cached: same bytes, same translation.
  return memoised(key, fetched.right, () => {
    const text = utf8(fetched.right);
    if (text === undefined) return invalid(`${root}: not UTF-8 text`);
    const parsed = parseYamlDocument(text);
    return E.isLeft(parsed) ? invalid(`${root}: not a YAML document: ${parsed.left}`) : translated(parsed.right, inputs, root);
  });
};

const fromCsar = async (csar: JsonValue, inputs: JsonValue | undefined, fetcher: Fetcher, maxBytes: number, key: string, memoised: Memo): Promise<Translation> => {
  if (typeof csar !== 'string') return invalid('spec.csar: expected the URL of a CSAR archive');
  const fetched = await fetcher(csar);
  const root = `spec.csar (${csar})`;
  if (E.isLeft(fetched)) return invalid(`${root}: ${fetched.left.message}`, fetched.left.retryable);
  return memoised(key, fetched.right, () => {
    const entry = csarEntry(fetched.right, maxBytes);
    if (E.isLeft(entry)) return invalid(`${root}: ${entry.left}`);
    const entryRoot = `${root} ${entry.right.path}`;
    const parsed = parseYamlDocument(entry.right.text);
    return E.isLeft(parsed) ? invalid(`${entryRoot}: not a YAML document: ${parsed.left}`) : translated(parsed.right, inputs, entryRoot);
  });
};

const utf8 = (bytes: Uint8Array): string | undefined => {
  try { return new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return undefined; }
};
