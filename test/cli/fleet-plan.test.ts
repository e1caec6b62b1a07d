/**
 * `kreconcile fleet-plan` (issue 38): a recorded fleet of three web instances with a template bump
 * for two of them, and two Applications that both declare the APIService v1beta1.metrics.k8s.io
 * (metrics-server and kube-prometheus, as measured in the issue). Golden text, JSON and markdown;
 * the conflict and who wins; the exit codes as `plan`'s.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FleetPlanDocumentV1 } from '../../app/cli/render/fleet.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';

const DIR = 'test/fixtures/fleet';
const NOW = '2026-03-02T12:00:00Z';
const BASE = [
  'fleet-plan',
  '--snapshot',
  `${DIR}/fleet.yaml`,
  '-f',
  `${DIR}/bump.yaml`,
  '-f',
  `${DIR}/metrics.yaml`,
  '--policy',
  `${DIR}/policy.yaml`,
  '--now',
  NOW,
];
const WARNING = 'warning: 1 object(s) declared by more than one Application: see "Conflicts between Applications"\n';

describe('kreconcile fleet-plan', () => {
  it('prints the golden text report: totals, the conflict, groups with one example each', async () => {
    const result = await runCli(BASE);
    expect(result).toMatchObject({ code: 0, stderr: WARNING });
    expectGolden('test/cli/golden/fleet/fleet.txt', result.stdout);
    expect(result.stdout).toContain('2 instances patch Deployment spec.template (2 objects)');
    expect(result.stdout).toContain('2 Applications: shop-a/web, shop-b/web');
    expect(result.stdout).toContain('rolls 4 pods of apps/v1 Deployment shop-a/web');
    // The unchanged instance is planned as recorded, and says so.
    expect(result.stdout).toContain('Application shop-c/web (as recorded in test/fixtures/fleet/fleet.yaml)');
  });

  it('prints the golden JSON document, the conflict naming both Applications and who wins', async () => {
    const result = await runCli([...BASE, '-o', 'json']);
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/fleet/fleet.json', result.stdout);
    const document = JSON.parse(result.stdout) as FleetPlanDocumentV1;
    expect(document.summary).toMatchObject({ create: 2, patch: 2, delete: 0, applications: 5, changes: true });
    expect(document.conflicts).toEqual([
      expect.objectContaining({
        object: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1beta1.metrics.k8s.io' },
        applications: ['monitoring/metrics-server', 'monitoring/kube-prometheus'],
        winner: { type: 'FirstToCreate' },
      }),
    ]);
    expect(document.groups.map((g) => g.applications)).toEqual([
      ['shop-a/web', 'shop-b/web'],
      ['monitoring/metrics-server', 'monitoring/kube-prometheus'],
      ['shop-c/web'],
    ]);
    expect(document.plans).toBeUndefined();
    expect((await runCli([...BASE, '-o', 'json', '--all'])).stdout).toContain('"plans": [');
  });

  it('prints the golden markdown for a pull request', async () => {
    const result = await runCli([...BASE, '-o', 'markdown']);
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/fleet/fleet.md', result.stdout);
    expect(result.stdout).toContain('| patch | Deployment | `spec.template` | 2 | 2 |');
    expect(result.stdout).toContain('#### Conflicts between Applications');
  });

  it('names the owner as the winner once one of the two has created the object', async () => {
    const owned = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
  labels: { app.kubernetes.io/managed-by: kreconcile }
  annotations: { kreconcile.io/owner: monitoring/kube-prometheus }
spec: { group: metrics.k8s.io, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100 }
`;
    const result = await runCli(
      [
        'fleet-plan',
        '--snapshot',
        'owned.yaml',
        '-f',
        `${DIR}/metrics.yaml`,
        '--policy',
        `${DIR}/policy.yaml`,
        '--now',
        NOW,
        '-o',
        'json',
      ],
      {
        files: { 'owned.yaml': owned },
      },
    );
    const document = JSON.parse(result.stdout) as FleetPlanDocumentV1;
    expect(document.conflicts[0]?.winner).toEqual({ type: 'Owner', application: 'monitoring/kube-prometheus' });
    expect(document.conflicts[0]?.message).toContain('monitoring/metrics-server stall NotOwned');
    // The loser's own plan already shows the conflict: `plan` and `fleet-plan` agree.
    expect(document.summary.conflict).toBe(1);
  });

  it('exits as plan does: 2 with --exit-code on changes, 3 when the guard denies, 1 on bad input', async () => {
    expect((await runCli([...BASE, '--exit-code'])).code).toBe(2);
    const inSync = await runCli(['fleet-plan', '--snapshot', `${DIR}/fleet.yaml`, '--now', NOW, '--exit-code']);
    expect(inSync).toMatchObject({ code: 0, stderr: '' });
    expect(inSync.stdout).toContain('No changes in any instance.');
    const guard = 'rules:\n  - name: no-apiservices\n    deny: { actions: [create], kinds: [APIService] }\n';
    const denied = await runCli([...BASE, '--guard', 'guard.yaml'], { files: { 'guard.yaml': guard } });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('guard: Application monitoring/metrics-server: rule "no-apiservices" denies');
    expect(denied.stdout).toContain('denied: Application monitoring/kube-prometheus');
    const missing = await runCli(['fleet-plan', '-f', `${DIR}/bump.yaml`, '--now', NOW]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('name the fleet with --snapshot');
  });
});

describe('kreconcile fleet-plan: field fights (--field-managers as plan has it)', () => {
  const APP = readFileSync('examples/webapp/app.yaml', 'utf8');
  const BY_KUBECTL = readFileSync('examples/webapp/snapshots/drifted-observed.yaml', 'utf8');
  const SCALE_ENTRY = '      manager: kubectl\n      operation: Update\n      subresource: scale\n';
  const BY_HPA = BY_KUBECTL.replace(SCALE_ENTRY, SCALE_ENTRY.replace('kubectl', 'kube-controller-manager'));
  const MANAGERS =
    '- manager: kubectl\n  subresource: scale\n  paths: [spec.replicas]\n  controller: the on-call scaler\n';
  const fleetPlan = (snapshot: string, extra: ReadonlyArray<string> = [], files: Record<string, string> = {}) =>
    runCli(['fleet-plan', '-f', 'app.yaml', '--snapshot', 'snapshot.yaml', '--now', NOW, ...extra], {
      files: { 'app.yaml': APP, 'snapshot.yaml': snapshot, ...files },
    });

  it('an HPA that scaled a Deployment is a fight the fleet report flags, with its cure, in every format', async () => {
    expect(BY_HPA).not.toBe(BY_KUBECTL);
    const text = await fleetPlan(BY_HPA);
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const at = lines.indexOf('Field fights (left to the controllers that own them, not patched back):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  Application shop/web:',
      '    apps/v1 Deployment shop/web spec.replicas: owned by HorizontalPodAutoscaler (kube-controller-manager through /scale), manager kube-controller-manager via /scale since 2026-03-02T08:41:17Z',
      "      to end it: stop observing spec.replicas of Deployment web: remove it from the resource's observer schema (HorizontalPodAutoscaler (kube-controller-manager through /scale) owns it)",
    ]);
    const document = JSON.parse((await fleetPlan(BY_HPA, ['-o', 'json'])).stdout) as FleetPlanDocumentV1;
    expect(document.fights).toEqual([
      {
        application: 'shop/web',
        fields: [expect.objectContaining({ path: 'spec.replicas', manager: 'kube-controller-manager' })],
      },
    ]);
    expect(document.totals.some((total) => total.kind === 'Deployment')).toBe(false);
    expect((await fleetPlan(BY_HPA, ['-o', 'markdown'])).stdout).toContain('#### Field fights');
  });

  it('--field-managers adds a manager of your own: a person scaling through /scale is then a fight too', async () => {
    const plain = JSON.parse((await fleetPlan(BY_KUBECTL, ['-o', 'json'])).stdout) as FleetPlanDocumentV1;
    expect(plain.fights).toBeUndefined();
    expect(plain.totals).toContainEqual(
      expect.objectContaining({ action: 'patch', kind: 'Deployment', fields: ['spec.replicas'] }),
    );
    const managed = await fleetPlan(BY_KUBECTL, ['-o', 'json', '--field-managers', 'm.yaml'], { 'm.yaml': MANAGERS });
    expect(managed.code).toBe(0);
    const document = JSON.parse(managed.stdout) as FleetPlanDocumentV1;
    expect(document.fights?.[0]?.fields).toMatchObject([
      { path: 'spec.replicas', manager: 'kubectl', controller: 'the on-call scaler' },
    ]);
    expect(document.totals.some((total) => total.kind === 'Deployment')).toBe(false);
  });

  it('a bad --field-managers file is one line with file:line and what to do, exit 1', async () => {
    const result = await fleetPlan(BY_KUBECTL, ['--field-managers', 'm.yaml'], {
      'm.yaml': '- manager: kubectl\n  paths: spec.replicas\n  controller: me\n',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: m\.yaml:2:\d+: .*paths.*docs\/field-owners\.md/);
  });
});
