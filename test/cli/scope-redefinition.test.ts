/**
 * Issue 19, the CI path: a tenant's CustomResourceDefinition (inside the manifest or among the
 * `-f` files) must not redefine a known kind's scope, a saved plan whose scopes disagree with the
 * server's discovery is refused before any write, and `--out` leaves a 0600 file whatever was there.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import { planOf } from '../../app/cli/saved-plan/replay.js';
import { judgedDigest } from '../../core/internal.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/** The attacker's CRD: ClusterRoleBinding declared namespaced. */
const REDEFINING_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterrolebindings.rbac.authorization.k8s.io
spec:
  group: rbac.authorization.k8s.io
  scope: Namespaced
  names: { kind: ClusterRoleBinding, plural: clusterrolebindings }
  versions: [{ name: v1, served: true, storage: true }]
`;

const BINDING = `    - apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata: { name: alice-admin }
      roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
      subjects: [{ kind: User, name: alice, apiGroup: rbac.authorization.k8s.io }]
`;

const application = (withCrd: boolean): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: escalate, namespace: team-a }
spec:
  manifest:
${withCrd ? asListItem(REDEFINING_CRD) : ''}${BINDING}`;

/** `document` as an item of the manifest list above. */
const asListItem = (document: string): string =>
  `${document
    .trimEnd()
    .replace(/^/gm, '      ')
    .replace(/^ {6}apiVersion/, '    - apiVersion')}\n`;

/** The platform-team policy: CRDs and one cluster kind (ClusterRole) allowed. */
const POLICY = `clusterKinds:
  - from: team-a
    kinds: [apiextensions.k8s.io/CustomResourceDefinition, rbac.authorization.k8s.io/ClusterRole]
`;

describe('scopes come only from trusted sources (issue 19, CI path)', () => {
  let dir: string;
  let cluster: MemoryCluster;
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const live = (): RunOptions => ({ connect: async () => cluster, connectWritable: async () => cluster });
  const bindingRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: 'alice-admin' };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-scope-'));
    cluster = createMemoryCluster();
    await must(cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const [where, files] of [
    ['inside the manifest', (): ReadonlyArray<string> => [file('app.yaml', application(true))]],
    [
      'as a standalone -f file',
      (): ReadonlyArray<string> => [file('crd.yaml', REDEFINING_CRD), file('app.yaml', application(false))],
    ],
  ] as const) {
    it(`a CRD ${where} redefining ClusterRoleBinding as namespaced: the binding is forbidden, apply writes nothing`, async () => {
      const out = join(dir, 'plan.json');
      const args = [
        'plan',
        ...files().flatMap((name) => ['-f', name]),
        '--policy',
        file('policy.yaml', POLICY),
        '--kubeconfig',
        'kc',
        '--now',
        NOW,
        '--out',
        out,
        '-o',
        'json',
      ];
      const planned = await runCli(args, live());
      // A forbidden child stalls the plan: exit 1 with a summary, the plan saved all the same for review.
      expect(planned.code).toBe(1);
      expect(planned.stderr).toContain('error: Application team-a/escalate is Stalled (Forbidden), 1 forbidden');
      const saved = JSON.parse(readFileSync(out, 'utf8')) as SavedPlanV1;
      expect(saved.metadata.scopes['rbac.authorization.k8s.io/ClusterRoleBinding']).toBe('Cluster');
      const actions = saved.applications[0]!.actions;
      expect(actions.filter((action) => action.resource.kind === 'ClusterRoleBinding')).toEqual([
        expect.objectContaining({ type: 'forbidden', rule: 'ClusterScoped' }),
      ]);
      expect(actions.some((action) => action.type === 'create')).toBe(false);
      const applied = await runCli(['apply', out, '--kubeconfig', 'kc'], live());
      expect(await must(cluster.get(bindingRef))).toEqual(O.none);
      expect(applied.stdout).toContain('Applied: 0 created');
    });
  }

  it('apply refuses a saved plan whose scopes disagree with discovery, before any write', async () => {
    const out = join(dir, 'plan.json');
    const planned = await runCli(
      ['plan', '-f', file('app.yaml', application(false)), '--kubeconfig', 'kc', '--now', NOW, '--out', out],
      live(),
    );
    expect(planned.code).toBe(1); // stalled: the binding is forbidden
    // The file as a tenant could hand it over: the binding "namespaced" and created, with a ConfigMap first.
    const saved = JSON.parse(readFileSync(out, 'utf8')) as SavedPlanV1;
    const forged: SavedPlanV1 = {
      ...saved,
      metadata: { ...saved.metadata, scopes: { 'rbac.authorization.k8s.io/ClusterRoleBinding': 'Namespaced' } },
      applications: saved.applications.map((app) => ({
        ...app,
        actions: [
          {
            type: 'create',
            resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'first' },
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first', namespace: 'team-a' } },
            changes: [],
            guard: { absent: true },
          },
          {
            type: 'create',
            resource: { ...bindingRef, namespace: 'team-a' },
            body: {
              ...bindingRef,
              metadata: { name: 'alice-admin', namespace: 'team-a' },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
            },
            changes: [],
            guard: { absent: true },
          },
        ],
      })),
    };
    // Edited, the digests no longer match: refused before anything else.
    writeFileSync(out, JSON.stringify(forged));
    const edited = await runCli(['apply', out, '--kubeconfig', 'kc'], live());
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("the saved plan's digest");
    // A tenant can compute digests too (they are no signature): then discovery refuses the scopes.
    const redigested: SavedPlanV1 = {
      ...forged,
      applications: forged.applications.map((app) => ({
        ...app,
        digest: judgedDigest(undefined, { namespace: 'team-a', name: app.application.name }, planOf(app).actions),
      })),
    };
    writeFileSync(out, JSON.stringify(redigested));
    const applied = await runCli(['apply', out, '--kubeconfig', 'kc'], live());
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      "the plan's scopes disagree with the cluster's, nothing was applied: rbac.authorization.k8s.io/v1 ClusterRoleBinding team-a/alice-admin",
    );
    expect(applied.stderr).toContain('cluster-scoped on the server, the plan writes it in namespace team-a');
    expect(await must(cluster.get(bindingRef))).toEqual(O.none);
    expect(
      await must(cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'first' })),
    ).toEqual(O.none);
  });

  it("--crd is the admin's word on a new kind's scope; a tenant's -f CRD for the same kind does not change it", async () => {
    const gadgetCrd = (scope: 'Cluster' | 'Namespaced'): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.io }
spec:
  group: example.io
  scope: ${scope}
  names: { kind: Gadget, plural: gadgets }
  versions: [{ name: v1, served: true, storage: true }]
`;
    const app = file(
      'gadget-app.yaml',
      `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: gadgets, namespace: team-a }
spec:
  manifest:
    - apiVersion: example.io/v1
      kind: Gadget
      metadata: { name: g }
`,
    );
    const tenantCrd = file('tenant-crd.yaml', gadgetCrd('Namespaced'));
    const planOf = async (extra: ReadonlyArray<string>): Promise<ReadonlyArray<{ type: string }>> => {
      const result = await runCli(['plan', '-f', app, '-f', tenantCrd, ...extra, '--now', NOW, '-o', 'json']);
      const document = JSON.parse(result.stdout) as { applications: [{ actions: ReadonlyArray<{ type: string }> }] };
      return document.applications[0].actions;
    };
    // Without the admin's word, the tenant's CRD teaches an unknown kind: namespaced, created in team-a.
    expect((await planOf([])).map((action) => action.type)).toContain('create');
    // The admin's CRD says cluster-scoped: the tenant's CRD cannot change it, so the default policy forbids it.
    const admin = await planOf(['--crd', file('admin-crd.yaml', gadgetCrd('Cluster'))]);
    expect(admin.map((action) => action.type)).not.toContain('create');
    expect(admin).toContainEqual(expect.objectContaining({ type: 'forbidden', rule: 'ClusterScoped' }));
  });

  it('plan --out replaces an existing 0644 file with a 0600 one', async () => {
    const out = file('plan.json', '{"old": "world-readable"}');
    chmodSync(out, 0o644);
    const planned = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--now', NOW, '--out', out], live());
    expect(planned.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ kind: 'SavedPlan' });
  });
});
