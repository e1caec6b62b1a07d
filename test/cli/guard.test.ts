/**
 * `--guard` in the CLI (issue 22): `plan --guard` exits 3 naming each violation, its rule and
 * action; an approval on the live Application naming the plan digest lets it pass; bad guard files
 * are one line each; saved plans record the guard and their digests, and `apply` evaluates the
 * rules again against the cluster's approvals, writing nothing when denied.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type ObjectRef, type Resource } from '../../core/internal.js';
import { expectGolden } from './support/golden.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const manifest = (volume: boolean, mode: string): string => `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: db, namespace: shop }
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
      data: { mode: "${mode}" }
${
  volume
    ? `    - apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: data }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 1Gi } }
`
    : ''
}`;

const GUARD = `# The form of issue 22
rules:
  - name: keep-volumes
    deny: { actions: [delete, recreate], kinds: [PersistentVolumeClaim] }
  - name: few-deletes
    maxDeletes: 3            # per Application
  - name: no-prod-recreate
    deny: { actions: [recreate], namespaces: ["prod-*"] }
  - name: selectors-fixed
    deny: { actions: [patch], paths: [spec.selector] }
`;

const FILES = {
  'v1.yaml': manifest(true, 'a'),
  'v2.yaml': manifest(false, 'b'),
  'guard.yaml': GUARD,
  'loose.yaml': 'rules:\n  - name: few-deletes\n    maxDeletes: 3\n',
};

const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'db',
};
const pvcRef: ObjectRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data' };

const DIGEST = /sha256:[0-9a-f]{64}/g;
/** Digests cover the children's ownerReferences, which name the Application's (random) uid. */
const stable = (text: string): string => text.replace(DIGEST, 'sha256:<digest>');

describe('kreconcile plan/apply --guard', () => {
  let dir: string;
  let cluster: MemoryCluster;
  const live = (): RunOptions => ({
    files: FILES,
    builtinSchemas: true,
    connect: async () => cluster,
    connectWritable: async () => cluster,
  });
  const plan = (file: string, extra: ReadonlyArray<string> = []) =>
    runCli(['plan', '-f', file, '--kubeconfig', 'kc', '--now', NOW, ...extra], live());
  const read = async (ref: ObjectRef): Promise<Resource | undefined> => {
    const got = await cluster.get(ref)();
    return E.isRight(got) ? O.toUndefined(got.right) : undefined;
  };
  const approve = async (digest: string) => {
    const patched = await cluster.patch(appRef, {
      type: 'merge',
      body: { metadata: { annotations: { 'kreconcile.io/approve': digest } } },
    })();
    expect(E.isRight(patched)).toBe(true);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-guard-'));
    cluster = createMemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    // The Application in the cluster (as kubectl apply left it) and its children, created through a saved plan.
    const app = {
      apiVersion: APPLICATION_API_VERSION,
      kind: APPLICATION_KIND,
      metadata: { name: 'db', namespace: 'shop' },
      spec: {
        manifest: [
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'a' } },
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    } as unknown as Resource;
    await cluster.create(app)();
    // What the operator's status records of the children: the kinds its live reads cover.
    const recorded = (app.spec as { manifest: ReadonlyArray<Resource> }).manifest.map((child) => ({
      ...child,
      metadata: { ...child.metadata, namespace: 'shop' },
    }));
    await cluster.patchStatus(appRef, { type: 'merge', body: { status: { lastAppliedManifest: recorded } } })();
    const out = join(dir, 'v1.json');
    expect((await plan('v1.yaml', ['--out', out])).code).toBe(0);
    expect(await runCli(['apply', out, '--kubeconfig', 'kc'], live())).toMatchObject({ code: 0, stderr: '' });
    expect(await read(pvcRef)).toBeDefined();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('exit codes: 3 naming rule and action when denied (before --exit-code 2), 0 without a guard or under rules it passes', async () => {
    const denied = await plan('v2.yaml', ['--guard', 'guard.yaml']);
    expect(denied.code).toBe(3);
    expectGolden('test/cli/golden/guard/denied.stderr.txt', stable(denied.stderr));
    expect(denied.stdout).toContain('- v1 PersistentVolumeClaim shop/data');
    expect((await plan('v2.yaml', ['--guard', 'guard.yaml', '--exit-code'])).code).toBe(3);
    expect(await plan('v2.yaml')).toMatchObject({ code: 0, stderr: '' });
    expect((await plan('v2.yaml', ['--exit-code'])).code).toBe(2);
    expect(await plan('v2.yaml', ['--guard', 'loose.yaml'])).toMatchObject({ code: 0, stderr: '' });
    // A plan the guard has nothing against passes silently.
    expect(await plan('v1.yaml', ['--guard', 'guard.yaml'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('only --approve / --approvals-file naming the digest lets exactly that plan pass; an annotation in -f or on the live Application does not', async () => {
    const denied = await plan('v2.yaml', ['--guard', 'guard.yaml']);
    const digest = denied.stderr.match(DIGEST)?.[0];
    expect(digest).toBeDefined();
    expect((await plan('v2.yaml', ['--guard', 'guard.yaml', '--approve', `sha256:${'1'.repeat(64)}`])).code).toBe(3);
    const approved = await plan('v2.yaml', ['--guard', 'guard.yaml', '--approve', digest!]);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toBe(
      `guard: Application shop/db: approved by --approve (plan ${digest}) despite 1 violation(s): rule "keep-volumes"\n`,
    );
    const fromFile = await runCli(
      ['plan', '-f', 'v2.yaml', '--kubeconfig', 'kc', '--now', NOW, '--guard', 'guard.yaml', '--approvals-file', 'ok'],
      { ...live(), files: { ...FILES, ok: `# approved by the platform team\n${digest!}\n` } },
    );
    expect(fromFile.code).toBe(0);
    // The change under review cannot approve itself: the annotation in the -f file is ignored, and says why.
    const selfApproved = await runCli(
      ['plan', '-f', '-', '--kubeconfig', 'kc', '--now', NOW, '--guard', 'guard.yaml'],
      {
        ...live(),
        stdin: manifest(false, 'b').replace(
          'metadata: { name: db, namespace: shop }',
          `metadata: { name: db, namespace: shop, annotations: { kreconcile.io/approve: "${digest!}" } }`,
        ),
      },
    );
    expect(selfApproved.code).toBe(3);
    expect(selfApproved.stderr).toContain(
      'guard: warning: Application shop/db: its kreconcile.io/approve annotation is ignored: the files under review cannot approve their own plan',
    );
    // Nor does the live Application's annotation (the operator's approval) approve a CI plan.
    await approve(digest!);
    const live2 = await plan('v2.yaml', ['--guard', 'guard.yaml']);
    expect(live2.code).toBe(3);
    expect(live2.stderr).toContain("the live Application's kreconcile.io/approve annotation is ignored here");
    // The approval is of that plan: another change to the same spec is a new plan, denied again.
    const changed = await runCli(
      ['plan', '-f', '-', '--kubeconfig', 'kc', '--now', NOW, '--guard', 'guard.yaml', '--approve', digest!],
      { ...live(), stdin: manifest(false, 'c') },
    );
    expect(changed.code).toBe(3);
    expect(changed.stderr).not.toContain(`plan ${digest!}`);
  });

  it('approvals are digests: a malformed --approve or approvals-file line is one error with file:line; --approve needs --guard', async () => {
    const bad = await runCli(
      ['plan', '-f', 'v2.yaml', '--now', NOW, '--guard', 'guard.yaml', '--approvals-file', 'ok', '--approve', 'yes'],
      { files: { ...FILES, ok: `sha256:${'a'.repeat(64)}\nlgtm\n` }, builtinSchemas: true },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'error: --approve "yes": an approval is a plan digest, sha256: and 64 hexadecimal digits, as the denied plan printed it\n' +
        'error: ok:2:1: "lgtm" is not a plan digest: an approval is a plan digest, sha256: and 64 hexadecimal digits, as the denied plan printed it\n',
    );
    const unguarded = await runCli(['plan', '-f', 'v2.yaml', '--now', NOW, '--approve', `sha256:${'a'.repeat(64)}`], {
      files: FILES,
    });
    expect(unguarded).toMatchObject({ code: 1, stdout: '' });
    expect(unguarded.stderr).toContain('--approve and --approvals-file approve what --guard denies: give --guard');
  });

  it('bad guard files are one line each, with file:line and the field', async () => {
    const bad = async (text: string) =>
      runCli(['plan', '-f', 'v2.yaml', '--guard', 'bad.yaml', '--now', NOW], {
        files: { ...FILES, 'bad.yaml': text },
        builtinSchemas: true,
      });
    expect(await bad('rules:\n  - name: x\n    deny: { kind: [Pod] }\n')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: bad.yaml:3:5: document 1: rules[0].deny: unknown field "kind": expected actions, kinds, namespaces, names, paths (see docs/cli.md, "Guard policies")\n',
    });
    expect((await bad('')).stderr).toBe(
      'error: bad.yaml: the guard file is empty: write rules (see docs/cli.md, "Guard policies")\n',
    );
    expect((await bad('rules:\n  - name: x\n    maxDeletes: many\n')).stderr).toBe(
      'error: bad.yaml:3:5: document 1: rules[0].maxDeletes: expected a whole number ≥ 0, got "many" (see docs/cli.md, "Guard policies")\n',
    );
    const missing = await runCli(['plan', '-f', 'v2.yaml', '--guard', join(dir, 'none.yaml'), '--now', NOW], {
      files: FILES,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr.split('\n')).toHaveLength(2);
  });

  it('saved plans record the guard and each plan digest; apply evaluates the rules again and writes nothing when denied', async () => {
    // The pipeline applies the Application's new spec, then the saved plan (no operator runs).
    await cluster.patch(appRef, {
      type: 'merge',
      body: {
        spec: {
          manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'b' } }],
        },
      },
    })();
    const out = join(dir, 'v2.json');
    const planned = await plan('v2.yaml', ['--guard', 'guard.yaml', '--out', out]);
    expect(planned.code).toBe(3);
    const digest = planned.stderr.match(DIGEST)?.[0];
    const saved = JSON.parse(readFileSync(out, 'utf8')) as SavedPlanV1;
    expect(saved.metadata.guard).toEqual({ file: 'guard.yaml', digest: expect.stringMatching(/^sha256:/) as unknown });
    expect(saved.applications[0]?.digest).toBe(digest);
    const shown = await runCli(['show', out], live());
    expectGolden('test/cli/golden/guard/show.txt', stable(shown.stdout.replace(out, 'v2.json')));
    const markdown = await runCli(['show', out, '-o', 'markdown'], live());
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('- **delete** v1 PersistentVolumeClaim shop/data (Application shop/db)');
    expect(markdown.stdout).toContain('data.mode: "a" → "b"');

    // Made with a guard, applied only with one.
    const unguarded = await runCli(['apply', out, '--kubeconfig', 'kc'], live());
    expect(unguarded.code).toBe(1);
    expect(unguarded.stderr).toContain('pass it with --guard, apply evaluates its rules again');
    const refused = await runCli(['apply', out, '--kubeconfig', 'kc', '--guard', 'guard.yaml'], live());
    expect(refused.code).toBe(3);
    expect(stable(refused.stderr.replace(out, 'v2.json'))).toBe(
      'guard: Application shop/db: rule "keep-volumes" denies delete of v1 PersistentVolumeClaim shop/data\n' +
        'guard: Application shop/db: plan sha256:<digest> denied; after review, approve it with: kreconcile apply v2.json --guard guard.yaml --approve sha256:<digest> (docs/ci.md, "Approvals")\n',
    );
    expect(refused.stdout).toBe('');
    expect(await read(pvcRef)).toBeDefined();
    expect((await read({ ...pvcRef, kind: 'ConfigMap', name: 'settings' }))?.data).toEqual({ mode: 'a' });

    // The live Application's annotation approves nothing in CI.
    await approve(digest!);
    expect((await runCli(['apply', out, '--kubeconfig', 'kc', '--guard', 'guard.yaml'], live())).code).toBe(3);
    // Approved (as the denial printed it): apply carries it out.
    const applied = await runCli(
      ['apply', out, '--kubeconfig', 'kc', '--guard', 'guard.yaml', '--approve', digest!],
      live(),
    );
    expect(applied.stderr).toBe(
      `guard: Application shop/db: approved by --approve (plan ${digest}) despite 1 violation(s): rule "keep-volumes"\n`,
    );
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied: 0 created, 1 patched, 1 deleted.');
    const gone = await read(pvcRef);
    expect(gone === undefined || gone.metadata.deletionTimestamp !== undefined).toBe(true);
  });

  it("a saved plan's guard record is bound to its digest: removed, edited or applied under other rules, apply refuses (issue 37)", async () => {
    const out = join(dir, 'v2.json');
    expect((await plan('v2.yaml', ['--guard', 'guard.yaml', '--out', out])).code).toBe(3);
    const saved = JSON.parse(readFileSync(out, 'utf8')) as SavedPlanV1;
    const { guard: _removed, ...unguarded } = saved.metadata;
    const attempts: ReadonlyArray<readonly [string, SavedPlanV1, ReadonlyArray<string>]> = [
      ['guard record removed', { ...saved, metadata: unguarded }, []],
      [
        'guard record naming another file',
        {
          ...saved,
          metadata: { ...saved.metadata, guard: { file: 'loose.yaml', digest: `sha256:${'0'.repeat(64)}` } },
        },
        ['--guard', 'loose.yaml'],
      ],
      ['applied under looser rules', saved, ['--guard', 'loose.yaml']],
    ];
    for (const [what, file, flags] of attempts) {
      writeFileSync(out, JSON.stringify(file));
      const applied = await runCli(['apply', out, '--kubeconfig', 'kc', ...flags], live());
      expect({ what, code: applied.code, stdout: applied.stdout }).toEqual({ what, code: 1, stdout: '' });
      expect(applied.stderr).toContain("the saved plan's digest");
    }
    expect(await read(pvcRef)).toBeDefined();
  });

  it('--out prints the plan even when it refuses to save it', async () => {
    const secret = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata: { name: vault, namespace: shop }
spec:
  manifest:
    - { apiVersion: v1, kind: Secret, metadata: { name: token }, stringData: { token: hunter2 } }
`;
    const out = join(dir, 'secret.json');
    const result = await runCli(['plan', '-f', 's.yaml', '--now', NOW, '--out', out], { files: { 's.yaml': secret } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('+ v1 Secret shop/token');
    expect(result.stdout).not.toContain('hunter2');
    expect(result.stderr).toContain(`error: the plan was not saved to ${out}`);
    expect(existsSync(out)).toBe(false);
  });

  it('KUBECONFIG is honoured as kubectl honours it, and the plan header names the basis', async () => {
    const targets: unknown[] = [];
    const viaEnv = await runCli(['plan', '-f', 'v2.yaml', '--now', NOW], {
      ...live(),
      env: { KUBECONFIG: '/ci/kubeconfig' },
      connect: async (target) => {
        targets.push(target);
        return cluster;
      },
    });
    expect(targets).toEqual([{}]); // the client's own lookup reads KUBECONFIG (lists of files included)
    expect(viaEnv.stdout).toMatch(/^Planned against the live cluster \(read-only\) of KUBECONFIG=\/ci\/kubeconfig\.\n/);
    expect(viaEnv.stdout).toContain('- v1 PersistentVolumeClaim shop/data'); // the cluster's PVC, not an empty cluster
    const json = await runCli(['plan', '-f', 'v2.yaml', '--now', NOW, '-o', 'json'], {
      ...live(),
      env: { KUBECONFIG: '/ci/kubeconfig' },
    });
    expect((JSON.parse(json.stdout) as { metadata: unknown }).metadata).toMatchObject({
      cluster: { type: 'Live', kubeconfigPath: 'KUBECONFIG=/ci/kubeconfig' },
    });
    const offline = await runCli(['plan', '-f', 'v2.yaml', '--now', NOW, '--offline'], {
      ...live(),
      env: { KUBECONFIG: '/ci/kubeconfig' },
    });
    expect(offline.stdout).toMatch(/^Planned against an empty cluster \(offline/);
    const snapshot = await plan('v2.yaml');
    expect(snapshot.stdout).toMatch(/^Planned against the live cluster \(read-only\) of --kubeconfig kc\.\n/);
  });
});
