/**
 * The translation step (docs/behaviour.md §4.1): an Application defined by `spec.tosca` (inline or URL) or
 * `spec.csar` (URL) gets its manifest from the template. Never writes `spec`: the result is
 * handed to `plan` as `PlanOptions.translatedManifest`. Every template, fetched or inline, is
 * translated in a worker thread (isolated.ts) with bounded time and memory, and in it with bounded
 * steps and output (core/tosca): a few lines of inline TOSCA can expand exponentially (issue 19),
 * and the operator's event loop (`/healthz`) must never pay for it.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  DEFAULT_JSON_BOUNDS,
  isJsonObject,
  showPath,
  withinBounds,
  type Application,
  type JsonValue,
} from '../../core/internal.js';
import { createFetcher, defaultFetchLimits, type Fetcher, type FetcherOptions } from './fetch.js';
import { defaultIsolationLimits, translateIsolated, type IsolationLimits } from './isolated.js';
import { invalid, translateBody, type TranslationJob, type Translation } from './translation.js';

export type { Translation } from './translation.js';

export type Translator = (application: Application) => Promise<Translation>;

export type TranslatorOptions = FetcherOptions & {
  /** Replaces the fetcher built from the other options (tests). */
  readonly fetcher?: Fetcher;
  /** Translations remembered (default 256). */
  readonly memoEntries?: number;
  /**
   * Time and heap for translating one template in its worker thread (default 10 s, 256 MiB);
   * `false` translates on the calling thread (embedders that trust every template source; the
   * step and output bounds still hold).
   */
  readonly isolation?: Partial<IsolationLimits> | false;
};

/** Whether an Application's manifest comes from a template: an empty manifest and `tosca` or `csar`. */
export const needsTranslation = (application: Application): boolean => {
  const { spec } = application;
  const manifest = spec.manifest;
  const written = manifest !== undefined && manifest.length > 0;
  return !written && (spec.tosca !== undefined || spec.csar !== undefined);
};

type Memo = (key: string, source: unknown, compute: () => Promise<Translation>) => Promise<Translation>;

/**
 * A translator with its own fetch cache. Equal inputs give the very same manifest array (so the
 * planner's per-spec cache keeps hitting); errors are messages naming the path, for a `Stalled`
 * condition with reason `InvalidTosca`.
 */
export const createToscaTranslator = (options: TranslatorOptions = {}): Translator => {
  const fetcher = options.fetcher ?? createFetcher(options);
  const maxBytes = options.maxBytes ?? defaultFetchLimits.maxBytes;
  const isolation = options.isolation === false ? undefined : { ...defaultIsolationLimits, ...options.isolation };
  const run = (job: TranslationJob): Promise<Translation> =>
    isolation === undefined ? Promise.resolve(translateBody(job)) : translateIsolated(job, isolation);
  const memo = new Map<string, { readonly source: unknown; readonly result: Promise<Translation> }>();
  const memoised: Memo = (key, source, compute) => {
    const hit = memo.get(key);
    if (hit !== undefined && hit.source === source) return hit.result;
    const result = compute();
    memo.delete(key);
    memo.set(key, { source, result });
    const capacity = options.memoEntries ?? 256;
    for (let oldest = memo.keys().next(); memo.size > capacity && oldest.done !== true; oldest = memo.keys().next())
      memo.delete(oldest.value);
    return result;
  };
  return async (application) => {
    if (!needsTranslation(application)) return { _tag: 'NotNeeded' };
    const { spec } = application;
    const inputs = spec.toscaInputs;
    if (spec.tosca !== undefined && spec.csar !== undefined)
      return invalid('spec.tosca, spec.csar: give one of them, not both');
    const bounded = outOfBounds(spec);
    if (bounded !== undefined) return bounded;
    const key = JSON.stringify([spec.tosca ?? null, spec.csar ?? null, inputs ?? null]);
    if (spec.csar !== undefined) {
      if (typeof spec.csar !== 'string') return invalid('spec.csar: expected the URL of a CSAR archive');
      return fromUrl('csar', spec.csar, inputs, { fetcher, maxBytes, run, key, memoised });
    }
    const tosca = spec.tosca;
    if (typeof tosca === 'string') return fromUrl('tosca', tosca, inputs, { fetcher, maxBytes, run, key, memoised });
    if (!isJsonObject(tosca)) return invalid('spec.tosca: expected a TOSCA template (a mapping) or the URL of one');
    return memoised(key, undefined, () => run({ kind: 'inline', template: tosca, inputs, root: 'spec.tosca' }));
  };
};

/**
 * An inline template or inputs too deep or too large to walk (they came from the API server, decoded but unbounded).
 */
const outOfBounds = (spec: { readonly [key: string]: JsonValue }): Translation | undefined => {
  for (const field of ['tosca', 'toscaInputs'] as const) {
    const checked = spec[field] === undefined ? E.right(undefined) : withinBounds(spec[field], DEFAULT_JSON_BOUNDS);
    if (E.isLeft(checked)) return invalid(`${showPath(checked.left.path, `spec.${field}`)}: ${checked.left.message}`);
  }
  return undefined;
};

type Context = {
  readonly fetcher: Fetcher;
  readonly maxBytes: number;
  readonly run: (job: TranslationJob) => Promise<Translation>;
  readonly key: string;
  readonly memoised: Memo;
};

const fromUrl = async (
  kind: 'tosca' | 'csar',
  url: string,
  inputs: JsonValue | undefined,
  context: Context,
): Promise<Translation> => {
  const fetched = await context.fetcher(url);
  const root = `spec.${kind} (${url})`;
  if (E.isLeft(fetched)) return invalid(`${root}: ${fetched.left.message}`, fetched.left.retryable);
  // The fetcher hands out the same bytes while they are cached: same bytes, same translation.
  return context.memoised(context.key, fetched.right, () =>
    context.run({ kind, body: fetched.right, inputs, root, maxBytes: context.maxBytes }),
  );
};
