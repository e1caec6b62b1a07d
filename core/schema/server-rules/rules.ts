/**
 * What kube-apiserver 1.36 refuses in a built-in object beyond its OpenAPI schema, checked offline
 * (docs/cli.md, "kreconcile validate" lists them): values its decoder refuses (quantities such as
 * `memory: 1GB`, base64, times: the canonical forms of core/canonical), CronJob schedules and time
 * zones, the restart policy of Job and workload templates, a workload selector that does not match
 * its template's labels, container names and ports, Service ports. Each problem is at its path,
 * in the server's words, with what to do. Pure.
 */
import { canonicalized } from '../../canonical/canonical.js';
import { QUANTITY_FORMAT_ERROR } from '../../canonical/quantity.js';
import { getOwn, isJsonArray, isJsonObject, type JsonObject, type JsonValue } from '../../json/json.js';
import type { Path } from '../../json/path.js';
import type { Issue } from '../../model/decode.js';
import { groupOf } from '../../model/resource.js';
import { issueAt } from '../openapi.js';
import { scheduleProblems, timeZoneProblem } from './cron.js';
import { dns1123LabelProblem, portNameProblem, portNumberProblem, quoted } from './names.js';
import { ANY_RESTART, JOB_RESTART, podSpecFindings, REFUSED, WORKLOAD_RESTART, type Finding } from './pod-spec.js';
import { selectorFindings } from './selector.js';
import { jsonText } from '../../json/text.js';

const QUANTITY_HINT = 'write a quantity such as 512Mi, 1Gi, 2 or 500m (no space, no B: 1G is 10^9 bytes, 1Gi 2^30)';

/** Values the server's decoder refuses (the whole object is refused with the first one). */
const decodeFindings = (resource: JsonObject): ReadonlyArray<Finding> =>
  canonicalized(groupOf(jsonText(resource.apiVersion)), jsonText(resource.kind), resource).problems.map((problem) => ({
    at: problem.path,
    message: `${problem.message} (${REFUSED}): ${problem.message === QUANTITY_FORMAT_ERROR || problem.message.includes('quantity') ? QUANTITY_HINT : 'write the value in the form its field takes (docs/application.md)'}`,
  }));

const cronJobFindings = (resource: JsonObject): ReadonlyArray<Finding> => {
  const spec = getOwn(resource, 'spec');
  if (!isJsonObject(spec)) return [];
  const schedule = getOwn(spec, 'schedule');
  const zone = getOwn(spec, 'timeZone');
  const zoneProblem = typeof zone === 'string' ? timeZoneProblem(zone) : undefined;
  const jobSpec = getOwn(spec, 'jobTemplate');
  const template = isJsonObject(jobSpec) ? getOwn(jobSpec, 'spec') : undefined;
  return [
    ...(typeof schedule === 'string' ? scheduleProblems(schedule) : []).map((problem) => ({
      at: ['spec', 'schedule'],
      message: `Invalid value: ${quoted(jsonText(schedule))}: ${problem} (${REFUSED}): write five fields (minute hour day-of-month month day-of-week, e.g. "0 3 * * *"; ranges 1-5, lists 1,15, steps */10, names JAN, MON) or a macro (@hourly, @daily, @weekly, @monthly, @yearly), and the zone in spec.timeZone`,
    })),
    ...(zoneProblem === undefined
      ? []
      : [
          {
            at: ['spec', 'timeZone'],
            message: `Invalid value: ${quoted(jsonText(zone))}: ${zoneProblem} (${REFUSED}): write an IANA zone name as the tz database spells it, e.g. "Europe/Berlin" or "Etc/UTC"`,
          },
        ]),
    ...jobTemplateFindings(template, ['spec', 'jobTemplate', 'spec']),
  ];
};

const jobTemplateFindings = (jobSpec: JsonValue | undefined, at: Path): ReadonlyArray<Finding> => {
  const template = isJsonObject(jobSpec) ? getOwn(jobSpec, 'template') : undefined;
  return isJsonObject(template)
    ? podSpecFindings(getOwn(template, 'spec'), [...at, 'template', 'spec'], JOB_RESTART)
    : [];
};

/** Deployment, ReplicaSet, StatefulSet, DaemonSet: the selector matches the template, which restarts Always. */
const workloadFindings = (resource: JsonObject): ReadonlyArray<Finding> => {
  const spec = getOwn(resource, 'spec');
  if (!isJsonObject(spec)) return [];
  const template = getOwn(spec, 'template');
  return [
    ...selectorFindings(getOwn(spec, 'selector'), template, jsonText(resource.kind)),
    ...(isJsonObject(template)
      ? podSpecFindings(getOwn(template, 'spec'), ['spec', 'template', 'spec'], WORKLOAD_RESTART)
      : []),
  ];
};

const servicePortFindings = (resource: JsonObject): ReadonlyArray<Finding> => {
  const spec = getOwn(resource, 'spec');
  const ports = isJsonObject(spec) ? getOwn(spec, 'ports') : undefined;
  if (!isJsonArray(ports)) return [];
  const names = new Set<string>();
  return ports.flatMap((port, i) =>
    isJsonObject(port) ? servicePortFinding(port, ['spec', 'ports', i], ports.length, names) : [],
  );
};

const servicePortFinding = (port: JsonObject, at: Path, count: number, names: Set<string>): ReadonlyArray<Finding> => {
  const name = getOwn(port, 'name');
  const number = getOwn(port, 'port');
  const target = getOwn(port, 'targetPort');
  const nameProblem =
    typeof name === 'string' && name !== ''
      ? (dns1123LabelProblem(name) ?? (names.has(name) ? 'Duplicate value' : undefined))
      : count > 1
        ? 'Required value: a Service with several ports names each one'
        : undefined;
  if (typeof name === 'string') names.add(name);
  const numberProblem = typeof number === 'number' ? portNumberProblem(number) : undefined;
  const targetProblem =
    typeof target === 'number'
      ? target === 0
        ? undefined
        : portNumberProblem(target)
      : typeof target === 'string'
        ? portNameProblem(target)
        : undefined;
  return [
    ...(nameProblem === undefined
      ? []
      : [
          {
            at: [...at, 'name'],
            message: `${typeof name === 'string' ? `Invalid value: ${quoted(name)}: ` : ''}${nameProblem} (${REFUSED}): give every port its own name, e.g. http`,
          },
        ]),
    ...(numberProblem === undefined
      ? []
      : [{ at: [...at, 'port'], message: `Invalid value: ${jsonText(number)}: ${numberProblem} (${REFUSED})` }]),
    ...(targetProblem === undefined
      ? []
      : [
          {
            at: [...at, 'targetPort'],
            message: `Invalid value: ${JSON.stringify(target)}: ${targetProblem} (${REFUSED}): name a container port (at most 15 lowercase letters, digits, hyphens) or give its number`,
          },
        ]),
  ];
};

const KIND_RULES: ReadonlyMap<string, (resource: JsonObject) => ReadonlyArray<Finding>> = new Map([
  ['batch/v1/CronJob', cronJobFindings],
  ['batch/v1/Job', (resource: JsonObject) => jobTemplateFindings(getOwn(resource, 'spec'), ['spec'])],
  ['apps/v1/Deployment', workloadFindings],
  ['apps/v1/ReplicaSet', workloadFindings],
  ['apps/v1/StatefulSet', workloadFindings],
  ['apps/v1/DaemonSet', workloadFindings],
  ['v1/Pod', (resource: JsonObject) => podSpecFindings(getOwn(resource, 'spec'), ['spec'], ANY_RESTART)],
  ['v1/Service', servicePortFindings],
]);

/** Every such problem of the manifest entry `index`, at `spec.manifest[index].<path>`. */
export const serverRuleIssues = (resource: JsonObject, index: number): ReadonlyArray<Issue> => {
  const kindRules = KIND_RULES.get(`${jsonText(resource.apiVersion)}/${jsonText(resource.kind)}`);
  return [...decodeFindings(resource), ...(kindRules === undefined ? [] : kindRules(resource))].map((finding) =>
    issueAt([index, ...finding.at], finding.message),
  );
};
