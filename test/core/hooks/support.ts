/** Fixtures of the hook tests: one workload of every kind, a hook context, and lookups into plans. */
import { getIn, type HookContext, type JsonValue, type Plan, type Resource } from '../../../core/internal.js';
import { actionsOf } from '../fixtures.js';

export const TOKENS = {
  complete: 'complete-token-value-0123456789',
  shutdown: 'shutdown-token-value-9876543210',
} as const;
export const CONTEXT: HookContext = { callbackUrl: 'http://kreconcile.kreconcile-system.svc:8080', tokens: TOKENS };
export const SECRET_NAME = 'app.default.kreconcile-hooks';

const podSpec = (): JsonValue => ({
  initContainers: [{ name: 'init', image: 'busybox:1.36' }],
  containers: [
    { name: 'main', image: 'nginx:1.27', env: [{ name: 'LOG_LEVEL', value: 'info' }] },
    { name: 'sidecar', image: 'busybox:1.36' },
  ],
});

const template = (): JsonValue => ({ metadata: { labels: { app: 'w' } }, spec: podSpec() });

/** One workload of each kind docs/behaviour.md §6 names, each with init containers and two containers. */
export const WORKLOADS: ReadonlyArray<{
  readonly kind: string;
  readonly resource: Resource;
  readonly podSpec: ReadonlyArray<string>;
}> = [
  {
    kind: 'Pod',
    podSpec: ['spec'],
    resource: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w' }, spec: podSpec() },
  },
  {
    kind: 'Deployment',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'w' } }, template: template() },
    },
  },
  {
    kind: 'StatefulSet',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'w' },
      spec: { serviceName: 'w', selector: { matchLabels: { app: 'w' } }, template: template() },
    },
  },
  {
    kind: 'DaemonSet',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'w' },
      spec: { selector: { matchLabels: { app: 'w' } }, template: template() },
    },
  },
  {
    kind: 'ReplicaSet',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'w' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'w' } }, template: template() },
    },
  },
  {
    kind: 'ReplicationController',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'w' },
      spec: { replicas: 1, selector: { app: 'w' }, template: template() },
    },
  },
  {
    kind: 'Job',
    podSpec: ['spec', 'template', 'spec'],
    resource: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'w' },
      spec: { template: { spec: { ...(podSpec() as object), restartPolicy: 'Never' } } },
    },
  },
  {
    kind: 'CronJob',
    podSpec: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
    resource: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'w' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: { spec: { template: { spec: { ...(podSpec() as object), restartPolicy: 'OnFailure' } } } },
      },
    },
  },
];

export const envRef = (name: string, key: string): JsonValue => ({
  name,
  valueFrom: { secretKeyRef: { name: SECRET_NAME, key } },
});

export const COMPLETE_ENV = [
  envRef('KRECONCILE_COMPLETE_TOKEN', 'complete-token'),
  envRef('KRECONCILE_COMPLETE_URL', 'complete-url'),
];
export const SHUTDOWN_ENV = [
  envRef('KRECONCILE_SHUTDOWN_TOKEN', 'shutdown-token'),
  envRef('KRECONCILE_SHUTDOWN_URL', 'shutdown-url'),
];

/** The body of the create action of a kind (and name). */
export const created = (result: Plan, kind: string, name?: string, namespace?: string): Resource | undefined =>
  actionsOf(result, 'create').find(
    (action) =>
      action.ref.kind === kind &&
      (name === undefined || action.ref.name === name) &&
      (namespace === undefined || action.ref.namespace === namespace),
  )?.body;

export const at = (value: JsonValue | undefined, path: ReadonlyArray<string | number>): JsonValue | undefined =>
  getIn(value, path);

export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
