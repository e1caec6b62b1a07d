/**
 * The field rules offline validation checks beyond the schema (core/schema/server-rules) against
 * the real API server: each object is sent with dryRun=All, and offline validation must refuse
 * exactly what the server refuses (nothing stored), at the paths the server names. Values are the
 * ones real manifests hold (docs/cli.md, "kreconcile validate", lists the rules).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { builtinSchemas } from '../../adapters/schemas/builtin-schemas.js';
import {
  catalogIssues,
  catalogOfCompact,
  showClusterError,
  type JsonObject,
  type Resource,
} from '../../core/internal.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

const pod = (spec: JsonObject): JsonObject => ({ containers: [{ name: 'app', image: 'busybox' }], ...spec });

const cronJob = (name: string, schedule: string, extra: JsonObject = {}, template: JsonObject = {}): Resource => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: {
    schedule,
    ...extra,
    jobTemplate: { spec: { template: { spec: pod({ restartPolicy: 'Never', ...template }) } } },
  },
});

const deployment = (
  name: string,
  labels: JsonObject,
  spec: JsonObject,
  selector: JsonObject = { matchLabels: { app: 'web' } },
): Resource => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector, template: { metadata: { labels }, spec: pod(spec) } },
});

const CASES: ReadonlyArray<Resource> = [
  cronJob('four-fields', '0 3 * *'),
  cronJob('zero-step', '*/0 3 * * *'),
  cronJob('backwards', '0 3-1 * * *'),
  cronJob('sunday-seven', '0 3 * * 7'),
  cronJob('bad-name', '0 3 * FOO *'),
  cronJob('tz-prefix', 'TZ=UTC 0 3 * * *'),
  cronJob('unknown-macro', '@fortnightly'),
  cronJob('local-zone', '0 3 * * *', { timeZone: 'Local' }),
  cronJob('lower-zone', '0 3 * * *', { timeZone: 'europe/berlin' }),
  cronJob('always', '0 3 * * *', {}, { restartPolicy: 'Always' }),
  cronJob('ok-ranges', '5/15 ? 1,15 */2 mon-fri', { timeZone: 'Europe/Berlin' }),
  cronJob('ok-macro', '@hourly', { timeZone: 'Etc/UTC' }),
  cronJob('ok-every', '@every 1h30m'),
  { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'no-restart' }, spec: { template: { spec: pod({}) } } },
  {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'ok-job' },
    spec: { template: { spec: pod({ restartPolicy: 'OnFailure' }) } },
  },
  deployment('mismatch', { app: 'api' }, {}),
  deployment('on-failure', { app: 'web' }, { restartPolicy: 'OnFailure' }),
  deployment('upper-name', { app: 'web' }, { containers: [{ name: 'Web_1', image: 'nginx' }] }),
  deployment(
    'twice',
    { app: 'web' },
    {
      containers: [
        { name: 'web', image: 'nginx' },
        { name: 'web', image: 'nginx' },
      ],
    },
  ),
  deployment(
    'port-range',
    { app: 'web' },
    { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 70000 }] }] },
  ),
  deployment(
    'port-name',
    { app: 'web' },
    { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80, name: 'http-port-too-long' }] }] },
  ),
  deployment(
    'gigabytes',
    { app: 'web' },
    { containers: [{ name: 'web', image: 'nginx', resources: { limits: { memory: '1GB' } } }] },
  ),
  deployment(
    'one-core',
    { app: 'web' },
    { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '1 core' } } }] },
  ),
  deployment(
    'expressions',
    { tier: 'db' },
    {},
    { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
  ),
  deployment(
    'ok-expressions',
    { tier: 'web', app: 'x' },
    {
      containers: [
        {
          name: 'web',
          image: 'nginx',
          ports: [{ containerPort: 8080, name: 'http' }],
          resources: { limits: { memory: '512Mi', cpu: '500m' } },
        },
      ],
    },
    { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] },
  ),
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'unnamed-ports' },
    spec: { ports: [{ port: 80 }, { port: 443 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'target-name' },
    spec: { ports: [{ port: 80, targetPort: 'http_x' }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'ok-service' },
    spec: {
      ports: [
        { name: 'http', port: 80, targetPort: 'http' },
        { name: 'https', port: 443, targetPort: 8443 },
      ],
    },
  },
];

describeWithApiServer('offline field rules agree with the real API server (dryRun=All)', (env) => {
  let cluster: KubernetesCluster;
  let namespace: string;
  let cleanup: () => Promise<void>;
  const catalog = catalogOfCompact(builtinSchemas());

  beforeAll(async () => {
    cluster = connect(env);
    ({ namespace, cleanup } = await freshNamespace(cluster, 'kr-rules'));
  });
  afterAll(async () => cleanup());

  it.each(CASES.map((resource) => [resource.metadata.name, resource] as const))(
    '%s',
    async (_, resource) => {
      const offline = catalogIssues({ manifest: [resource], catalog });
      const answer = await cluster.create(
        { ...resource, metadata: { ...resource.metadata, namespace } },
        { dryRun: true },
      )();
      const refusal = E.isLeft(answer) ? showClusterError(answer.left) : undefined;
      expect(offline.length > 0, `offline: ${JSON.stringify(offline)}; server: ${refusal ?? 'accepted'}`).toBe(
        refusal !== undefined,
      );
      // A field error names its path; a decoding error (a quantity) refuses the whole object without one.
      for (const issue of offline)
        if (refusal !== undefined && !refusal.includes('quantities must match'))
          expect(refusal).toContain(issue.path.replace(/^spec\.manifest\[0\]\./, ''));
    },
    20_000,
  );
});
