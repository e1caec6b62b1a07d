/** `kreconcile plan --policy`: the operator's tenancy verdicts in CI, and one-line errors for bad policy files. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

const APP = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: web, namespace: team-a }
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: { a: "1" }
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: db-settings, namespace: team-a-db }
      data: { a: "1" }
`;

const plan = (extra: ReadonlyArray<string>, files: Record<string, string> = {}) =>
  runCli(['plan', '-f', 'app.yaml', '--now', '2026-03-02T12:00:00Z', ...extra], {
    files: { 'app.yaml': APP, ...files },
  });

describe('kreconcile plan: tenancy', () => {
  it('by default a child in another namespace is forbidden in every format, and nothing else would be written', async () => {
    const text = await plan([]);
    // Nothing of a forbidden plan is carried out: the gate fails (exit 1) with a summary (issue 36).
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error: 1 of 1 Application(s) stalled');
    expect(text.stdout)
      .toBe(`Planned against an empty cluster (offline: no --snapshot, --kubeconfig, --context or KUBECONFIG).

Application team-a/web (app.yaml, document 1)
  · add finalizer kreconcile.io/cleanup to the Application
  ! v1 ConfigMap team-a-db/db-settings: forbidden (Destination): namespace team-a-db is not an allowed destination for Applications in team-a (policy destinations: team-a); never written
  Stalled (Forbidden): not allowed by the tenancy policy, nothing of this Application is written until the spec or policy changes: v1 ConfigMap team-a-db/db-settings (Destination: namespace team-a-db is not an allowed destination for Applications in team-a (policy destinations: team-a))

Plan: 0 to create, 0 to patch, 0 to delete, 1 forbidden.
`);
    const json = JSON.parse((await plan(['-o', 'json'])).stdout) as {
      applications: Array<{ result: string; actions: Array<Record<string, unknown>>; stalled: { reason: string } }>;
      summary: Record<string, unknown>;
    };
    expect(json.applications[0]?.result).toBe('Stalled');
    expect(json.applications[0]?.stalled.reason).toBe('Forbidden');
    expect(json.applications[0]?.actions.map((a) => a.type)).toEqual(['addFinalizer', 'forbidden']);
    expect(json.applications[0]?.actions[1]).toMatchObject({
      type: 'forbidden',
      resource: { namespace: 'team-a-db', name: 'db-settings' },
      rule: 'Destination',
    });
    expect(json.summary).toEqual({ create: 0, patch: 0, delete: 0, conflict: 0, forbidden: 1, changes: true });
    expect((await plan(['-o', 'yaml'])).stdout).toContain('type: forbidden');
    expect((await plan(['--exit-code'])).code).toBe(1);
  });

  it('with --policy allowing team-a → team-a-db the same child is created', async () => {
    const policy = 'destinations:\n  - from: team-a\n    to: [team-a-db]\n';
    const result = await plan(['--policy', 'policy.yaml'], { 'policy.yaml': policy });
    expect(result.stdout).toContain('  + v1 ConfigMap team-a-db/db-settings');
    expect(result.stdout).toContain('Plan: 2 to create, 0 to patch, 0 to delete.');
  });

  it.each([
    [
      'policy.yaml:2:5: document 1: destinations[0]: unknown field "too": expected from, to',
      'destinations:\n  - from: team-a\n    too: [x]\n',
    ],
    [
      'policy.yaml:1:1: document 1: adoption: expected "ownNamespace" | "destinations" | "never", got string "always"',
      'adoption: always\n',
    ],
    [
      'policy.yaml:1:1: document 1: unknown field "destination": expected apiVersion, kind, destinations, clusterKinds, adoption, serviceAccounts',
      'destination: []\n',
    ],
    [
      'policy.yaml:1:40: document 1: clusterKinds[0].kinds[0]: expected group/Kind',
      'clusterKinds: [{ from: team-a, kinds: [clusterrole] }]\n',
    ],
    [
      'policy.yaml:1:43: document 1: serviceAccounts[0].names[0]: expected a ServiceAccount name or "*", got "team-a/admin"',
      'serviceAccounts: [{ from: team-a, names: [team-a/admin] }]\n',
    ],
    ['policy.yaml: the policy file is empty', '# nothing\n'],
  ])('a bad policy file is one clear line: %s', async (expected, policy) => {
    const result = await plan(['--policy', 'policy.yaml'], { 'policy.yaml': policy });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain(`error: ${expected}`);
  });

  it('docs/security.md shows a real policy error line', async () => {
    const result = await plan(['--policy', 'policy.yaml'], {
      'policy.yaml': 'destinations:\n  - from: team-a\n    too: [x]\n',
    });
    expect(readFileSync('docs/security.md', 'utf8')).toContain(result.stderr.trimEnd());
  });

  it('kreconcile run --policy refuses a bad policy file before starting, with the same one line', async () => {
    const result = await runCli(['run', '--memory', '-f', 'app.yaml', '--policy', 'policy.yaml'], {
      files: { 'app.yaml': APP, 'policy.yaml': 'adoption: always\n' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: policy.yaml:1:1: document 1: adoption: expected "ownNamespace" | "destinations" | "never", got string "always" (see docs/security.md, "Policy file reference")\n',
    );
  });
});
