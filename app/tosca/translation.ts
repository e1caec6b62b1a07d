/**
 * Turning template sources into a manifest: an inline template, the text of a fetched template or
 * a CSAR archive's bytes, into a `Translation`. Pure and synchronous: the translator runs the
 * fetched (untrusted, possibly large) ones in a worker thread (translate-worker.ts).
 */
import * as E from 'fp-ts/lib/Either.js';
import { showIssue, translateTemplate, type JsonValue, type Resource, type ToscaIssue } from '../../core/internal.js';
import { csarEntry } from './csar.js';
import { parseYamlDocument } from './yaml.js';

export type Translation =
  /** The Application has a manifest, or no template: nothing to translate. */
  | { readonly _tag: 'NotNeeded' }
  | { readonly _tag: 'Translated'; readonly manifest: ReadonlyArray<Resource> }
  /** `retryable`: fetching failed in a way that may pass later (network, 5xx, timeout). */
  | { readonly _tag: 'Invalid'; readonly message: string; readonly retryable: boolean };

/** A fetched body to translate: a template's text (`tosca`) or a CSAR archive (`csar`). */
export type BodyJob = {
  readonly kind: 'tosca' | 'csar';
  readonly body: Uint8Array;
  readonly inputs: JsonValue | undefined;
  /** How messages name the source, e.g. `spec.csar (https://…)`. */
  readonly root: string;
  /** Largest file inflated from a CSAR. */
  readonly maxBytes: number;
};

/** An inline template (`spec.tosca` as a mapping): already JSON, translated with the same bounds. */
export type InlineJob = {
  readonly kind: 'inline';
  readonly template: JsonValue;
  readonly inputs: JsonValue | undefined;
  readonly root: string;
};

/** Anything the translator hands to a worker thread. */
export type TranslationJob = BodyJob | InlineJob;

export const invalid = (message: string, retryable = false): Translation => ({ _tag: 'Invalid', message, retryable });

/** The manifest of a template (already a JSON value); messages name paths below `root`. */
export const translated = (template: JsonValue, inputs: JsonValue | undefined, root: string): Translation => {
  const result = translateTemplate({ template, inputs, parseDocument: parseYamlDocument, root });
  return E.isRight(result) ? { _tag: 'Translated', manifest: result.right } : invalid(showIssues(result.left));
};

const showIssues = (issues: ReadonlyArray<ToscaIssue>): string => issues.map(showIssue).join('; ');

/** The manifest of a fetched body (UTF-8 YAML text, or a CSAR whose entry template is), or of an inline template. */
export const translateBody = (job: TranslationJob): Translation => {
  if (job.kind === 'inline') return translated(job.template, job.inputs, job.root);
  if (job.kind === 'csar') {
    const entry = csarEntry(job.body, job.maxBytes);
    if (E.isLeft(entry)) return invalid(`${job.root}: ${entry.left}`);
    return translateText(entry.right.text, job.inputs, `${job.root} ${entry.right.path}`);
  }
  const text = utf8(job.body);
  return text === undefined ? invalid(`${job.root}: not UTF-8 text`) : translateText(text, job.inputs, job.root);
};

const translateText = (text: string, inputs: JsonValue | undefined, root: string): Translation => {
  const parsed = parseYamlDocument(text);
  return E.isLeft(parsed)
    ? invalid(`${root}: not a YAML document: ${parsed.left}`)
    : translated(parsed.right, inputs, root);
};

const utf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
};
