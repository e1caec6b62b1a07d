/**
 * `kreconcile plan --simulate` (issue 22): every reconcile round to convergence, golden on a
 * dependency chain (with one object held unready by --simulate-unready) and on a recreation.
 */
import { describe, expect, it } from 'vitest';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const deployment = (name: string, app: string, annotations: Record<string, string> = {}, extra: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop', annotations, ...extra },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
});

const application = (manifest: ReadonlyArray<object>): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { manifest },
  });

// settings ← db ← web: web waits for db, db for the ConfigMap.
const CHAIN = application([
  deployment('web', 'web', { 'kreconcile.io/depends-on': 'apps/Deployment/db' }),
  deployment('db', 'db', { 'kreconcile.io/depends-on': 'ConfigMap/settings' }),
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } },
]);

const RECREATE_APP = application([deployment('web', 'web-v2', { 'kreconcile.io/recreate': 'true' })]);
const LIVE = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: [
    deployment(
      'web',
      'web-v1',
      { 'kreconcile.io/recreate': 'true', 'kreconcile.io/owner': 'shop/web' },
      { uid: 'd-1', resourceVersion: '42', generation: 1, labels: { 'app.kubernetes.io/managed-by': 'kreconcile' } },
    ),
  ],
});

// A custom resource ready by its readiness rule on status.phase, and a ConfigMap that depends on it.
const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const RULED = JSON.stringify({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    readiness: [{ kind: 'Widget', ready: 'self.status.phase == "Ready"' }],
    manifest: [
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'after', annotations: { 'kreconcile.io/depends-on': 'example.com/Widget/w' } },
        data: { a: '1' },
      },
    ],
  },
});
const CRDS = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [WIDGET_CRD] });

const files = {
  'chain.json': CHAIN,
  'recreate.json': RECREATE_APP,
  'live.json': LIVE,
  'ruled.json': RULED,
  'crds.json': CRDS,
};

describe('kreconcile plan --simulate', () => {
  it('a dependency chain: each round waits for the previous to be ready, then converges', async () => {
    const result = await runCli(['plan', '-f', 'chain.json', '--now', NOW, '--simulate'], { files });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/simulate/chain.txt', result.stdout);
    const json = JSON.parse(
      (await runCli(['plan', '-f', 'chain.json', '--now', NOW, '--simulate', '-o', 'json'], { files })).stdout,
    ) as {
      applications: Array<{ reconciles: number; result: string; rounds: Array<{ actions: Array<{ type: string }> }> }>;
    };
    expect(json.applications[0]).toMatchObject({ result: 'Converged' });
    expect(json.applications[0]?.reconciles).toBe(json.applications[0]?.rounds.length);
    expect(json.applications[0]?.rounds[0]?.actions.map((a) => a.type)).toContain('wait');
  });

  it('an object that never becomes ready: its dependents wait, and the simulation says it does not converge (exit 1)', async () => {
    const result = await runCli(
      ['plan', '-f', 'chain.json', '--now', NOW, '--simulate', '--simulate-unready', 'Deployment/db'],
      { files },
    );
    expect(result.code).toBe(1);
    expectGolden('test/cli/golden/simulate/unready.txt', result.stdout);
  });

  it('a readiness rule on status.phase: the created custom resource is assumed ready by its rule, said in its round; its dependent follows; converges in 2', async () => {
    const args = ['plan', '-f', 'ruled.json', '--snapshot', 'crds.json', '--now', NOW, '--simulate'];
    const result = await runCli(args, { files });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/simulate/readiness-rule.txt', result.stdout);
    expect(result.stdout).toContain(
      '    assumed ready: example.com/v1 Widget shop/w (rule: self.status.phase == "Ready")',
    );
    expect(result.stdout).toContain('Converges after 2 reconciles that act.');
    const json = JSON.parse((await runCli([...args, '-o', 'json'], { files })).stdout) as {
      applications: Array<{ reconciles: number; result: string; rounds: Array<{ assumedReady?: unknown }> }>;
    };
    expect(json.applications[0]).toMatchObject({ result: 'Converged', reconciles: 2 });
    expect(json.applications[0]?.rounds.map((round) => round.assumedReady)).toEqual([
      [
        {
          resource: { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'shop', name: 'w' },
          rule: 'self.status.phase == "Ready"',
        },
      ],
      undefined,
    ]);
  });

  it('a readiness rule with --simulate-unready: the custom resource is not assumed ready, its dependent waits, and it says why', async () => {
    const result = await runCli(
      ['plan', '-f', 'ruled.json', '--snapshot', 'crds.json', '--now', NOW, '--simulate'].concat([
        '--simulate-unready',
        'Widget/w',
      ]),
      { files },
    );
    expect(result.code).toBe(1);
    expectGolden('test/cli/golden/simulate/readiness-rule-unready.txt', result.stdout);
    expect(result.stdout).not.toContain('assumed ready');
    expect(result.stdout).toContain('Does not converge');
  });

  it('a write withheld by kreconcile.io/apply (a skip in every plan) is no work left: it converges', async () => {
    const app = application([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'theirs', annotations: { 'kreconcile.io/apply': 'Ignore' } },
        data: { a: '1' },
      },
    ]);
    const result = await runCli(['plan', '-f', 'ignore.json', '--now', NOW, '--simulate'], {
      files: { 'ignore.json': app },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('    + skip (apply: Ignore) v1 ConfigMap shop/theirs, missing, not created\n');
    expect(result.stdout).toContain('Converges after 1 reconcile that acts.');
  });

  it('a recreation: delete, wait, create in one round, then converged', async () => {
    const result = await runCli(
      ['plan', '-f', 'recreate.json', '--snapshot', 'live.json', '--now', NOW, '--simulate'],
      {
        files,
      },
    );
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/simulate/recreate.txt', result.stdout);
    expect(result.stdout).toContain('-/+ apps/v1 Deployment shop/web');
  });
});
