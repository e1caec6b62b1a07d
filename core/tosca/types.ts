/** TOSCA translation (docs/behaviour.md §7): shared types and names. */
import type * as E from 'fp-ts/lib/Either.js';
import type { JsonValue } from '../json/json.js';
import type { Issue } from '../model/decode.js';

/** The only node type kreconcile translates: one Kubernetes resource in the property `spec`. */
export const KUBERNETES_OBJECT_TYPE = 'tosca.nodes.indigo.KubernetesObject';

/** The TOSCA functions kreconcile evaluates. */
export const SUPPORTED_FUNCTIONS: ReadonlyArray<string> = ['get_input', 'get_property', 'concat'];

/**
 * TOSCA Simple Profile functions kreconcile recognises but does not evaluate: reported as errors
 * instead of being passed on as data. Only these names, so a Kubernetes field that happens to be
 * a one-key object (`{"token": …}` in a custom resource, inside a YAML-string spec) is never taken
 * for a function: functions are evaluated in the template, not in a YAML-string `spec`.
 */
export const UNSUPPORTED_FUNCTIONS: ReadonlyArray<string> = [
  'get_attribute',
  'get_operation_output',
  'get_nodes_of_type',
  'get_artifact',
  'join',
  'token',
];

/** Parses one YAML (or JSON) document; the error says where, never quotes the source. */
export type ParseDocument = (text: string) => E.Either<string, JsonValue>;

export type ToscaIssue = Issue;
