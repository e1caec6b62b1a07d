/**
 * The field-ownership forecast in `kreconcile plan` (docs/field-owners.md): the recorded snapshot of
 * examples/webapp where `spec.replicas` was changed through /scale, once by a person (`kubectl
 * scale`: drift, patched back, its owner named) and once by an HPA (kube-controller-manager: left to
 * it, reported with the observer-schema change that ends the fight).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const APP = readFileSync('examples/webapp/app.yaml', 'utf8');
const BY_KUBECTL = readFileSync('examples/webapp/snapshots/drifted-observed.yaml', 'utf8');
const SCALE_ENTRY = '      manager: kubectl\n      operation: Update\n      subresource: scale\n';
const BY_HPA = BY_KUBECTL.replace(SCALE_ENTRY, SCALE_ENTRY.replace('kubectl', 'kube-controller-manager'));

const plan = (snapshot: string, extra: ReadonlyArray<string> = [], files: Record<string, string> = {}) =>
  runCli(['plan', '-f', 'app.yaml', '--snapshot', 'snapshot.yaml', '--now', '2026-03-02T12:00:00Z', ...extra], {
    files: { 'app.yaml': APP, 'snapshot.yaml': snapshot, ...files },
  });

type Json = {
  applications: Array<{
    actions: Array<{ type: string; resource: { kind: string }; changes: Array<{ path: string }> }>;
    fieldOwners?: Array<{ path: string; owners: Array<{ manager: string; subresource?: string }> }>;
    status: { contestedFields?: Array<{ path: string; manager: string; controller: string }> };
  }>;
};

describe('kreconcile plan: who owns the fields it patches', () => {
  it('a person who scaled the Deployment is named, and the replicas are patched back', async () => {
    expect(BY_HPA).not.toBe(BY_KUBECTL);
    const json = JSON.parse((await plan(BY_KUBECTL, ['-o', 'json'])).stdout) as Json;
    const [app] = json.applications;
    const deployment = app?.actions.find((action) => action.resource.kind === 'Deployment');
    expect(deployment?.changes.map((change) => change.path)).toEqual(['spec.replicas']);
    expect(app?.fieldOwners?.find((entry) => entry.path === 'spec.replicas')?.owners).toMatchObject([
      { manager: 'kubectl', subresource: 'scale' },
    ]);
    expect(app?.status.contestedFields).toBeUndefined();
  });

  it('an HPA that scaled it keeps the field: no patch, the fight reported with its cure, in every format', async () => {
    const text = await plan(BY_HPA);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain('spec.replicas: 5 → 3');
    const lines = text.stdout.split('\n');
    const at = lines.findIndex((line) => line.includes('Left to their controllers'));
    expect(lines.slice(at, at + 3)).toEqual([
      '  Left to their controllers (not patched back, see status.contestedFields):',
      '    apps/v1 Deployment shop/web spec.replicas: owned by HorizontalPodAutoscaler (kube-controller-manager through /scale), manager kube-controller-manager via /scale since 2026-03-02T08:41:17Z',
      "      to end it: stop observing spec.replicas of Deployment web: remove it from the resource's observer schema (HorizontalPodAutoscaler (kube-controller-manager through /scale) owns it)",
    ]);
    const json = JSON.parse((await plan(BY_HPA, ['-o', 'json'])).stdout) as Json;
    expect(json.applications[0]?.actions.some((action) => action.resource.kind === 'Deployment')).toBe(false);
    expect(json.applications[0]?.status.contestedFields).toMatchObject([
      { path: 'spec.replicas', manager: 'kube-controller-manager' },
    ]);
    expect((await plan(BY_HPA, ['-o', 'markdown'])).stdout).toContain('**Left to their controllers**');
  });

  it('docs/field-owners.md shows the lines plan prints', async () => {
    const docs = readFileSync('docs/field-owners.md', 'utf8');
    const printed = (await plan(BY_KUBECTL)).stdout;
    const owned = printed.split('\n').find((line) => line.includes('spec.replicas: kubectl (Update via /scale'));
    expect(owned).toBeDefined();
    expect(docs).toContain(owned?.trim());
    expect(docs).toContain('Patched fields other managers own now:');
  });

  it('--field-managers adds a manager of your own: kubectl through /scale is then left alone too', async () => {
    const managers =
      '- manager: kubectl\n  subresource: scale\n  paths: [spec.replicas]\n  controller: the on-call scaler\n';
    const json = JSON.parse(
      (await plan(BY_KUBECTL, ['-o', 'json', '--field-managers', 'm.yaml'], { 'm.yaml': managers })).stdout,
    ) as Json;
    expect(json.applications[0]?.status.contestedFields).toMatchObject([
      { path: 'spec.replicas', manager: 'kubectl', controller: 'the on-call scaler' },
    ]);
  });

  it('a bad --field-managers file is one line with file:line and what to do', async () => {
    const result = await plan(BY_KUBECTL, ['--field-managers', 'm.yaml'], {
      'm.yaml': '- manager: kubectl\n  paths: spec.replicas\n  controller: me\n',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: m\.yaml:2:\d+: .*paths.*docs\/field-owners\.md/);
  });
});
