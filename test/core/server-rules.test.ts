/**
 * What kube-apiserver 1.36 refuses beyond the OpenAPI schema, checked offline
 * (core/schema/server-rules): each expected message is the one the real server gave for the same
 * object (`kubectl apply --dry-run=server` against kube-apiserver 1.36.3), and each valid value is
 * one it accepted. test/integration/server-rules.test.ts compares them with the server itself.
 */
import { describe, expect, it } from 'vitest';
import { scheduleProblems, timeZoneProblem } from '../../core/schema/server-rules/cron.js';
import { serverRuleIssues } from '../../core/schema/server-rules/rules.js';
import { REMOVED_APIS, removedApiMessage } from '../../core/schema/removed-apis.js';
import type { JsonObject } from '../../core/internal.js';

const cronJob = (schedule: string, extra: JsonObject = {}, restartPolicy = 'Never'): JsonObject => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'c' },
  spec: {
    schedule,
    ...extra,
    jobTemplate: { spec: { template: { spec: { restartPolicy, containers: [{ name: 'a', image: 'busybox' }] } } } },
  },
});

describe('CronJob schedules as robfig/cron (the server) parses them', () => {
  it.each([
    ['0 3 * *', 'expected exactly 5 fields, found 4: [0 3 * *]'],
    ['*/0 3 * * *', 'step of range should be a positive number: */0'],
    ['0 3-1 * JAN-FEB 1', 'beginning of range (3) beyond end of range (1): 3-1'],
    ['0 3 * * 7', 'end of range (7) above maximum (6): 7'],
    ['0 3 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['0 3 * FOO *', 'failed to parse int from FOO: strconv.Atoi: parsing "FOO": invalid syntax'],
    ['0 1-2-3 * * *', 'too many hyphens: 1-2-3'],
    ['0 1/2/3 * * *', 'too many slashes: 1/2/3'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
    ['@every fortnight', 'failed to parse duration @every fortnight: time: invalid duration "fortnight"'],
    ['', 'empty spec string'],
  ])('refuses %j: %s', (schedule, message) => {
    expect(scheduleProblems(schedule)).toEqual([message]);
  });

  it.each([
    '0 3 * * *',
    '5/15 ? 1,15 */2 ?',
    '0 3 * * mon-fri',
    '0 0 1 jan,JUL *',
    '@hourly',
    '@every 5m',
    '@every 1h30m',
    '  0   3 * * *  ',
    '0 0 * * 0-6/2',
  ])('accepts %j', (schedule) => {
    expect(scheduleProblems(schedule)).toEqual([]);
  });

  it('refuses TZ= in the schedule in favour of spec.timeZone', () => {
    expect(scheduleProblems('TZ=UTC 0 3 * * mon-fri')).toEqual([
      'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    expect(scheduleProblems('CRON_TZ=UTC 0 3 * *')).toEqual([
      'expected exactly 5 fields, found 4: [0 3 * *]',
      'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
  });

  it('checks spec.timeZone as the tz database spells it', () => {
    expect(timeZoneProblem('Local')).toBe(
      'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    );
    expect(timeZoneProblem('europe/berlin')).toBe('unknown time zone europe/berlin');
    expect(timeZoneProblem('Mars/Olympus')).toBe('unknown time zone Mars/Olympus');
    expect(timeZoneProblem('../etc/passwd')).toBe('unknown time zone ../etc/passwd');
    for (const zone of ['Europe/Berlin', 'Etc/UTC', 'UTC', 'US/Pacific', 'America/Argentina/Buenos_Aires'])
      expect(timeZoneProblem(zone)).toBeUndefined();
  });
});

const messages = (resource: JsonObject): ReadonlyArray<string> =>
  serverRuleIssues(resource, 0).map(
    (issue) => `${issue.path}: ${issue.message.replace(/ \(the API server refuses it\).*$/, '')}`,
  );

describe('serverRuleIssues: field rules beyond the schema, at their paths', () => {
  it('a CronJob: schedule, zone, and its Job template restart policy', () => {
    expect(messages(cronJob('0 3 * *', { timeZone: 'Local' }, 'Always'))).toEqual([
      'spec.manifest[0].spec.schedule: Invalid value: "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *]',
      'spec.manifest[0].spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      'spec.manifest[0].spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
    expect(messages(cronJob('@daily', { timeZone: 'Europe/Berlin' }))).toEqual([]);
  });

  it('a Job without restartPolicy (the pod default Always is refused)', () => {
    const job: JsonObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }] } } },
    };
    expect(messages(job)).toEqual([
      'spec.manifest[0].spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
  });

  it('a Deployment: selector, restart policy, container names and ports, quantities', () => {
    const deployment: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              {
                name: 'Web_1',
                image: 'nginx',
                ports: [{ containerPort: 70000, name: 'http-port-too-long' }],
                resources: { limits: { memory: '1GB', cpu: '1 core' } },
              },
              { name: 'Web_1', image: 'nginx', ports: [] },
            ],
          },
        },
      },
    };
    expect(messages(deployment)).toEqual([
      "spec.manifest[0].spec.template.spec.containers[0].resources.limits.memory: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      "spec.manifest[0].spec.template.spec.containers[0].resources.limits.cpu: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      'spec.manifest[0].spec.template.metadata.labels: Invalid value: `selector` does not match template `labels`',
      'spec.manifest[0].spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      "spec.manifest[0].spec.template.spec.containers[0].name: Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')",
      'spec.manifest[0].spec.template.spec.containers[0].ports[0].name: Invalid value: "http-port-too-long": must be no more than 15 characters',
      'spec.manifest[0].spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      "spec.manifest[0].spec.template.spec.containers[1].name: Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')",
      'spec.manifest[0].spec.template.spec.containers[1].name: Duplicate value: "Web_1"',
    ]);
  });

  it('selectors: matchExpressions decide, an empty selector is refused', () => {
    const workload = (selector: JsonObject, labels: JsonObject): JsonObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 's' },
      spec: { selector, template: { metadata: { labels }, spec: { containers: [{ name: 'a', image: 'x' }] } } },
    });
    const inTier = { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] };
    expect(messages(workload(inTier, { tier: 'api' }))).toEqual([]);
    expect(messages(workload(inTier, { tier: 'db' }))).toHaveLength(1);
    expect(messages(workload({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: '' }))).toHaveLength(
      1,
    );
    expect(messages(workload({}, { app: 'a' }))).toEqual([
      'spec.manifest[0].spec.selector: Invalid value: empty selector is invalid for statefulset',
    ]);
  });

  it('Service ports: numbers, names required with several, named targetPorts', () => {
    const service: JsonObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 0, targetPort: 'http_x' }, { port: 80 }] },
    };
    expect(messages(service)).toEqual([
      'spec.manifest[0].spec.ports[0].name: Required value: a Service with several ports names each one',
      'spec.manifest[0].spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.manifest[0].spec.ports[0].targetPort: Invalid value: "http_x": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.manifest[0].spec.ports[1].name: Required value: a Service with several ports names each one',
    ]);
  });

  it('a custom kind and a valid workload have no findings; hostile values are quoted short', () => {
    expect(
      messages({ apiVersion: 'example.com/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template: {} } }),
    ).toEqual([]);
    const long = cronJob(`0 3 * * ${'1,'.repeat(5000)}9`);
    const [issue] = serverRuleIssues(long, 0);
    expect(issue?.message.length).toBeLessThan(700);
  });
});

describe('removed API versions, as pluto and kubent name them', () => {
  it.each([
    ['extensions/v1beta1', 'Ingress', '1.22', 'networking.k8s.io/v1'],
    ['policy/v1beta1', 'PodDisruptionBudget', '1.25', 'policy/v1'],
    ['batch/v1beta1', 'CronJob', '1.25', 'batch/v1'],
    ['autoscaling/v2beta2', 'HorizontalPodAutoscaler', '1.26', 'autoscaling/v2'],
    ['flowcontrol.apiserver.k8s.io/v1beta2', 'FlowSchema', '1.29', 'flowcontrol.apiserver.k8s.io/v1'],
    ['apps/v1beta2', 'Deployment', '1.16', 'apps/v1'],
  ])('%s %s: removed in %s, replaced by %s', (apiVersion, kind, release, replacement) => {
    const removed = REMOVED_APIS.get(`${apiVersion}/${kind}`);
    expect(removed).toMatchObject({ removedIn: release, replacement });
    expect(removedApiMessage(apiVersion, kind, removed ?? { removedIn: '' })).toContain(
      `was removed in Kubernetes ${release}: the API server no longer serves it: write apiVersion: ${replacement}`,
    );
  });

  it('PodSecurityPolicy has no successor, and says what to use instead', () => {
    const removed = REMOVED_APIS.get('policy/v1beta1/PodSecurityPolicy');
    expect(removed?.replacement).toBeUndefined();
    expect(removedApiMessage('policy/v1beta1', 'PodSecurityPolicy', removed ?? { removedIn: '' })).toMatch(
      /Pod Security Admission/,
    );
  });
});
