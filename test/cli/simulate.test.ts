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

const files = { 'chain.json': CHAIN, 'recreate.json': RECREATE_APP, 'live.json': LIVE };

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
