/** Errors of the spec and of observer schemas: data naming the JSON path, rendered by `showSpecError`. */
import type { Issue } from '../model/decode.js';

export type ObserverSchemaError = { readonly _tag: 'InvalidObserverSchema'; readonly issues: ReadonlyArray<Issue> };
export type SpecError = { readonly _tag: 'InvalidSpec'; readonly issues: ReadonlyArray<Issue> };

export const observerSchemaError = (issues: ReadonlyArray<Issue>): ObserverSchemaError => ({
  _tag: 'InvalidObserverSchema',
  issues,
});
export const specError = (issues: ReadonlyArray<Issue>): SpecError => ({ _tag: 'InvalidSpec', issues });

/** One line per issue: `spec.observerSchema[0].spec.ports: list has no control object …`. */
export const showSpecError = (error: ObserverSchemaError | SpecError): string =>
  error.issues.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`)).join('\n');
