/**
 * Pod spec rules kube-apiserver 1.36 checks beyond the OpenAPI schema (pkg/apis/core/validation
 * `ValidatePodSpec`, and the workload validations that constrain their templates): container
 * names, their uniqueness, container ports, and the restart policy a template may have. Pure.
 */
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { Path } from '../../json/path.js';
import { dns1123LabelProblem, portNameProblem, portNumberProblem, quoted } from './names.js';
import { jsonText } from '../../json/text.js';

/** A problem the server would report, at its path below the resource. */
export type Finding = { readonly at: Path; readonly message: string };

export const REFUSED = 'the API server refuses it';

/** The restart policies a template may have, and whether one must be written (a Job's must). */
export type RestartRule = { readonly allowed: ReadonlyArray<string>; readonly required: boolean };

export const WORKLOAD_RESTART: RestartRule = { allowed: ['Always'], required: false };
export const JOB_RESTART: RestartRule = { allowed: ['OnFailure', 'Never'], required: true };
export const ANY_RESTART: RestartRule = { allowed: ['Always', 'OnFailure', 'Never'], required: false };

const objectsOf = (value: JsonValue | undefined): ReadonlyArray<readonly [number, JsonObject]> =>
  isJsonArray(value) ? value.flatMap((item, i) => (isJsonObject(item) ? [[i, item] as const] : [])) : [];

const restartFindings = (spec: JsonObject, at: Path, rule: RestartRule): ReadonlyArray<Finding> => {
  const policy = getOwn(spec, 'restartPolicy');
  const valid = rule.allowed.map((value) => JSON.stringify(value)).join(', ');
  const fix = `write restartPolicy: ${rule.allowed.join(' or ')}`;
  if (typeof policy !== 'string')
    return rule.required
      ? [{ at: [...at, 'restartPolicy'], message: `Required value: valid values: ${valid} (${REFUSED}): ${fix}` }]
      : [];
  if (rule.allowed.includes(policy)) return [];
  const word = rule.required
    ? `Required value: valid values: ${valid}`
    : `Unsupported value: ${quoted(policy)}: supported values: ${valid}`;
  return [{ at: [...at, 'restartPolicy'], message: `${word} (${REFUSED}): ${fix}` }];
};

const portFindings = (container: JsonObject, at: Path): ReadonlyArray<Finding> =>
  objectsOf(getOwn(container, 'ports')).flatMap(([i, port]) => {
    const name = getOwn(port, 'name');
    const number = getOwn(port, 'containerPort');
    const host = getOwn(port, 'hostPort');
    const nameProblem = typeof name === 'string' ? portNameProblem(name) : undefined;
    const numberProblem = typeof number === 'number' ? portNumberProblem(number) : undefined;
    const hostProblem = typeof host === 'number' && host !== 0 ? portNumberProblem(host) : undefined;
    return [
      ...(nameProblem === undefined
        ? []
        : [
            {
              at: [...at, 'ports', i, 'name'],
              message: `Invalid value: ${quoted(jsonText(name))}: ${nameProblem} (${REFUSED}): name the port with at most 15 lowercase letters, digits and single hyphens, e.g. http`,
            },
          ]),
      ...(numberProblem === undefined
        ? []
        : [
            {
              at: [...at, 'ports', i, 'containerPort'],
              message: `Invalid value: ${jsonText(number)}: ${numberProblem} (${REFUSED})`,
            },
          ]),
      ...(hostProblem === undefined
        ? []
        : [
            {
              at: [...at, 'ports', i, 'hostPort'],
              message: `Invalid value: ${jsonText(host)}: ${hostProblem} (${REFUSED})`,
            },
          ]),
    ];
  });

/** Container names (DNS-1123 labels, unique across every list of the pod) and their ports. */
const containerFindings = (spec: JsonObject, at: Path): ReadonlyArray<Finding> => {
  const seen = new Set<string>();
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((list) =>
    objectsOf(getOwn(spec, list)).flatMap(([i, container]) => {
      const here = [...at, list, i];
      const name = getOwn(container, 'name');
      const problem = typeof name === 'string' ? dns1123LabelProblem(name) : undefined;
      const duplicate = typeof name === 'string' && seen.has(name);
      if (typeof name === 'string') seen.add(name);
      return [
        ...(problem === undefined
          ? []
          : [
              {
                at: [...here, 'name'],
                message: `Invalid value: ${quoted(jsonText(name))}: ${problem} (${REFUSED}): rename the container, e.g. ${quoted(
                  jsonText(name)
                    .toLowerCase()
                    .replace(/[^a-z0-9-]/g, '-')
                    .replace(/^-+|-+$/g, '') || 'app',
                )}`,
              },
            ]),
        ...(duplicate
          ? [
              {
                at: [...here, 'name'],
                message: `Duplicate value: ${quoted(String(name))} (${REFUSED}): every container of a pod needs its own name`,
              },
            ]
          : []),
        ...portFindings(container, here),
      ];
    }),
  );
};

/** The findings of a pod spec at `at` (a Pod's `spec`, a template's `spec.template.spec`). */
export const podSpecFindings = (spec: JsonValue | undefined, at: Path, restart: RestartRule): ReadonlyArray<Finding> =>
  isJsonObject(spec) ? [...restartFindings(spec, at, restart), ...containerFindings(spec, at)] : [];
