/**
 * TOSCA → manifest (docs/behaviour.md §4.1, §7): every node template of type
 * `tosca.nodes.indigo.KubernetesObject` becomes the Kubernetes resource of its property `spec`.
 * Pure: the YAML parser is handed in; fetching and unzipping are the shell's (app/tosca).
 */
import * as E from 'fp-ts/lib/Either.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/json.js';
import { showPath, type Path } from '../json/path.js';
import { isResource, type Resource } from '../model/resource.js';
import { BOUND_EXCEEDED, budgetOf, evaluate, type Scope, type ToscaBounds } from './functions.js';
import { KUBERNETES_OBJECT_TYPE, type ParseDocument, type ToscaIssue } from './types.js';

/**
 * The manifest of a TOSCA template, in node template order.
 * Errors (every one found, each naming its path below `root`): not a mapping, a missing or
 * unsupported `tosca_definitions_version`, no topology template, no node templates, unsupported
 * node type, empty or unparseable `spec`, a `spec` that is not one Kubernetes resource, and
 * failing functions (see `evaluate`).
 */
export const translateTemplate = (args: {
  readonly template: JsonValue;
  /** `spec.toscaInputs`: values for `get_input`. */
  readonly inputs?: JsonValue | undefined;
  readonly parseDocument: ParseDocument;
  /** How paths are shown, e.g. `spec.tosca`. */
  readonly root: string;
  /** The work the translation may do (default `DEFAULT_TOSCA_BOUNDS`); exceeding one is an issue naming it. */
  readonly bounds?: ToscaBounds;
}): E.Either<ReadonlyArray<ToscaIssue>, ReadonlyArray<Resource>> => {
  const { template, root } = args;
  const issue = (path: Path, message: string): ToscaIssue => ({ path: showPath(path, root), message });
  if (!isJsonObject(template))
    return E.left([issue([], 'a TOSCA template must be a mapping (tosca_definitions_version, topology_template, …)')]);
  const version = versionIssue(getOwn(template, 'tosca_definitions_version'));
  const versionIssues = version === undefined ? [] : [issue(['tosca_definitions_version'], version)];
  const shape = topologyOf(template, args.inputs);
  if (E.isLeft(shape)) return E.left([...versionIssues, issue(shape.left.path, shape.left.message)]);
  const { nodes, declared } = shape.right;
  const scope: Scope = {
    given: isJsonObject(args.inputs) ? args.inputs : {},
    declared: isJsonObject(declared) ? declared : {},
    nodes,
    root,
    budget: budgetOf(args.bounds),
  };
  const results: Array<E.Either<ReadonlyArray<ToscaIssue>, Resource>> = [];
  for (const name of Object.keys(nodes)) {
    const result = translateNode(name, nodes[name] ?? null, scope, args.parseDocument);
    results.push(result);
    // A bound exceeded ends the translation: every later node would only exceed it again.
    if (E.isLeft(result) && result.left.some((issue) => issue.message.startsWith(BOUND_EXCEEDED))) break;
  }
  const issues = [...versionIssues, ...results.flatMap((result) => (E.isLeft(result) ? result.left : []))];
  return issues.length > 0
    ? E.left(issues)
    : E.right(results.flatMap((result) => (E.isRight(result) ? [result.right] : [])));
};

type Topology = { readonly nodes: JsonObject; readonly declared: JsonValue | undefined };

/**
 * The node templates and declared inputs, or the first structural problem (no topology, no node templates, inputs not a
 * mapping).
 */
const topologyOf = (
  template: JsonObject,
  inputs: JsonValue | undefined,
): E.Either<{ readonly path: Path; readonly message: string }, Topology> => {
  const topology = getOwn(template, 'topology_template');
  if (!isJsonObject(topology))
    return E.left({
      path: ['topology_template'],
      message: 'no topology template: the template needs a topology_template mapping',
    });
  const nodes = getOwn(topology, 'node_templates');
  if (!isJsonObject(nodes) || Object.keys(nodes).length === 0) {
    return E.left({
      path: ['topology_template', 'node_templates'],
      message: 'no node templates: topology_template needs node_templates of type ' + KUBERNETES_OBJECT_TYPE,
    });
  }
  if (inputs !== undefined && inputs !== null && !isJsonObject(inputs))
    return E.left({ path: [], message: 'spec.toscaInputs must be a mapping of input names to values' });
  return E.right({ nodes, declared: getOwn(topology, 'inputs') });
};

/**
 * The TOSCA Simple Profile in YAML versions (1.0 to 1.3), whose grammar (`topology_template`,
 * `get_input`/`get_property`/`concat`) this translator reads. TOSCA 2.0 renamed the topology to
 * `service_template` and prefixes functions with `$`: it is refused, not misread.
 */
export const TOSCA_VERSIONS = [
  'tosca_simple_yaml_1_0',
  'tosca_simple_yaml_1_1',
  'tosca_simple_yaml_1_2',
  'tosca_simple_yaml_1_3',
] as const;

/** What is wrong with a template's `tosca_definitions_version` (which TOSCA requires), if anything. */
const versionIssue = (version: JsonValue | undefined): string | undefined => {
  const supported = `one of ${TOSCA_VERSIONS.join(', ')}`;
  if (version === undefined) return `missing tosca_definitions_version: TOSCA requires it; write ${supported}`;
  if (typeof version === 'string' && TOSCA_VERSIONS.some((known) => known === version)) return undefined;
  if (version === 'tosca_2_0')
    return `TOSCA 2.0 templates (service_template, $-functions) are not supported: write the template in the Simple Profile (${supported})`;
  return `unsupported tosca_definitions_version ${JSON.stringify(version)}: write ${supported}`;
};

const translateNode = (
  name: string,
  node: JsonValue,
  scope: Scope,
  parseDocument: ParseDocument,
): E.Either<ReadonlyArray<ToscaIssue>, Resource> => {
  const at: Path = ['topology_template', 'node_templates', name];
  const issue = (path: Path, message: string): E.Either<ReadonlyArray<ToscaIssue>, Resource> =>
    E.left([{ path: showPath(path, scope.root), message }]);
  if (!isJsonObject(node)) return issue(at, 'a node template must be a mapping with type and properties');
  const type = getOwn(node, 'type');
  if (type !== KUBERNETES_OBJECT_TYPE)
    return issue(
      [...at, 'type'],
      `unsupported node type ${JSON.stringify(type ?? null)}: kreconcile translates only ${KUBERNETES_OBJECT_TYPE}`,
    );
  const properties = getOwn(node, 'properties');
  const specPath: Path = [...at, 'properties', 'spec'];
  const written = isJsonObject(properties) ? getOwn(properties, 'spec') : undefined;
  if (written === undefined || isEmpty(written))
    return issue(specPath, 'empty spec: the property spec must hold one Kubernetes resource (YAML text or a mapping)');
  const evaluated = evaluate(written, scope, name, specPath);
  if (E.isLeft(evaluated)) return E.left([evaluated.left]);
  return E.chain((value: JsonValue) => asResource(value, specPath, scope.root))(
    parsedSpec(evaluated.right, specPath, scope.root, parseDocument),
  );
};

const isEmpty = (value: JsonValue | undefined): boolean =>
  value === undefined ||
  value === null ||
  (typeof value === 'string' && value.trim() === '') ||
  (isJsonObject(value) && Object.keys(value).length === 0);

/** A YAML-text spec parsed; a mapping as is. */
const parsedSpec = (
  value: JsonValue,
  path: Path,
  root: string,
  parseDocument: ParseDocument,
): E.Either<ReadonlyArray<ToscaIssue>, JsonValue> => {
  if (typeof value !== 'string') return E.right(value);
  if (value.trim() === '')
    return E.left([{ path: showPath(path, root), message: 'empty spec: the property spec evaluates to empty text' }]);
  const parsed = parseDocument(value);
  return E.isLeft(parsed)
    ? E.left([{ path: showPath(path, root), message: `spec is not valid YAML: ${parsed.left}` }])
    : E.right(parsed.right);
};

const asResource = (value: JsonValue, path: Path, root: string): E.Either<ReadonlyArray<ToscaIssue>, Resource> => {
  const fail = (message: string): E.Either<ReadonlyArray<ToscaIssue>, Resource> =>
    E.left([{ path: showPath(path, root), message }]);
  if (value === null || (isJsonObject(value) && Object.keys(value).length === 0))
    return fail('empty spec: the property spec holds no resource');
  if (!isJsonObject(value)) return fail('spec must hold one Kubernetes resource (a mapping), not a list or a scalar');
  const missing = missingIdentification(value);
  if (missing.length > 0) return fail(`spec is not a Kubernetes resource: missing ${missing.join(', ')}`);
  return isResource(value)
    ? E.right(value)
    : fail('spec is not a Kubernetes resource: metadata.namespace must be a non-empty string');
};

const missingIdentification = (value: JsonObject): ReadonlyArray<string> => {
  const metadata = getOwn(value, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  return [
    ...(typeof getOwn(value, 'apiVersion') === 'string' && getOwn(value, 'apiVersion') !== '' ? [] : ['apiVersion']),
    ...(typeof getOwn(value, 'kind') === 'string' && getOwn(value, 'kind') !== '' ? [] : ['kind']),
    ...(typeof name === 'string' && name !== '' ? [] : ['metadata.name']),
  ];
};
