/**
 * `plan --verify-converges` (issue 20, item 4): the plan carried out on the in-memory API server
 * and planned again. A manifest written with non-canonical quantities converges (the planner
 * sends what the server stores); one that sets a field the server drops is a perpetual diff
 * (exit 4, each round's object, field and values); plans that undo each other oscillate.
 */
import { describe, expect, it } from 'vitest';
import type { MutatingAdmission } from '../../adapters/memory/index.js';
import {
  convergenceTracker,
  describeConvergence,
  perpetualWrites,
  verdictOf,
  verifyConvergence,
  type Round,
} from '../../app/cli/planning/verify-converges.js';
import { builtinScopes, isJsonObject, withKey, withoutKey, type Resource } from '../../core/internal.js';
import type { ReconcileResult } from '../../app/reconcile/reconcile-application.js';
import type { Action } from '../../core/internal.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const application = (manifest: ReadonlyArray<unknown>): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { manifest },
  });

/** As people write it: milli-CPU for a whole core, Mi for a Gi, a bare number, stringData. */
const nonCanonical = application([
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { cpu: 0.5, memory: '0.5Gi' } },
            },
          ],
          volumes: [{ name: 'cache', emptyDir: { sizeLimit: '2048Mi' } }],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10240Mi' } } },
  },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { token: 's3cr3t' } },
]);

/** `metadata.generation` is the server's: whatever is sent, it keeps its own (none, for a ConfigMap). */
const serverOwnedField = application([
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', generation: 7 }, data: { mode: 'fast' } },
]);

const verify = (file: string) =>
  runCli(['plan', '-f', 'app.json', '--verify-converges', '--now', NOW], { files: { 'app.json': file } });

describe('plan --verify-converges', () => {
  it('a manifest written with non-canonical quantities converges: exit 0, the verdict after the plan', async () => {
    const result = await verify(nonCanonical);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expectGolden('test/cli/golden/verify-converges/converges.txt', result.stdout);
  });

  it('a field the server drops never converges: exit 4, each round names the object, field and values', async () => {
    const result = await verify(serverOwnedField);
    expect(result.code).toBe(4);
    expectGolden('test/cli/golden/verify-converges/perpetual.txt', result.stderr);
  });

  it('keeps stdout the plan document with -o json, the verdict on stderr', async () => {
    const result = await runCli(['plan', '-f', 'app.json', '--verify-converges', '-o', 'json', '--now', NOW], {
      files: { 'app.json': serverOwnedField },
    });
    expect(result.code).toBe(4);
    expect(() => JSON.parse(result.stdout) as unknown).not.toThrow();
    expect(result.stderr).toContain('metadata.generation: (absent) → 7');
  });

  it('names the manifest field the server drops by file:line:column in a YAML file', async () => {
    const yaml = [
      'apiVersion: kreconcile.io/v1alpha1',
      'kind: Application',
      'metadata: {name: web, namespace: shop}',
      'spec:',
      '  manifest:',
      '    - apiVersion: v1',
      '      kind: ConfigMap',
      '      metadata:',
      '        name: settings',
      '        generation: 7',
      '      data: {mode: fast}',
      '',
    ].join('\n');
    const result = await runCli(['plan', '-f', 'app.yaml', '--verify-converges', '--now', NOW], {
      files: { 'app.yaml': yaml },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(
      /perpetual diff: v1 ConfigMap shop\/settings: metadata\.generation \(app\.yaml:10:9\): answered with resourceVersion \d+ unchanged: the API server drops this value/,
    );
  });

  it('is documented in --help with its exit code', async () => {
    const help = await runCli(['plan', '--help']);
    expect(help.stdout).toContain('--verify-converges');
    expect(help.stdout).toMatch(/ {2}4 {2}with --verify-converges only/);
  });
});

const patchRound = (number: number, to: string): Round => ({
  number,
  writes: [{ type: 'patch', object: 'v1 ConfigMap shop/a', changes: [{ path: 'data.mode', from: 'x', to }] }],
});
const createRound: Round = { number: 1, writes: [{ type: 'create', object: 'v1 ConfigMap shop/a', changes: [] }] };

describe('verdictOf: the rounds decide', () => {
  it('converges on the first round that writes nothing and waits for nothing', () => {
    expect(verdictOf([createRound, { number: 2, writes: [] }], false, 6)).toEqual({ _tag: 'Converges', rounds: 1 });
    // Waiting (dependencies not ready yet) is no verdict: later rounds may create what waited.
    expect(verdictOf([createRound, { number: 2, writes: [] }], true, 6)).toBeUndefined();
  });

  it('calls the same writes in two rounds after the first a perpetual diff', () => {
    const rounds = [createRound, patchRound(2, 'fast'), patchRound(3, 'fast')];
    expect(verdictOf(rounds.slice(0, 2), false, 6)).toBeUndefined();
    expect(verdictOf(rounds, false, 6)).toMatchObject({ _tag: 'Perpetual', since: 2 });
  });

  it('calls writes that come back after another round an oscillation, with its period and every round', () => {
    const rounds = [createRound, patchRound(2, 'fast'), patchRound(3, 'slow'), patchRound(4, 'fast')];
    const verdict = verdictOf(rounds, false, 6);
    expect(verdict).toMatchObject({ _tag: 'Oscillates', period: 2 });
    expect(verdict === undefined ? [] : describeConvergence(verdict)).toEqual([
      'does not converge: the plans oscillate with a period of 2 rounds (each undoes what an earlier one wrote)',
      '  round 2: patch v1 ConfigMap shop/a: data.mode: "x" → "fast"',
      '  round 3: patch v1 ConfigMap shop/a: data.mode: "x" → "slow"',
      '  round 4: patch v1 ConfigMap shop/a: data.mode: "x" → "fast"',
    ]);
  });

  it('gives up at the bound when every round writes something new', () => {
    const rounds = [createRound, patchRound(2, 'a'), patchRound(3, 'b')];
    expect(verdictOf(rounds, false, 3)).toMatchObject({ _tag: 'NotConverged' });
  });
});

describe('convergenceTracker: run --memory reports the same', () => {
  const done = (actions: ReadonlyArray<Action>): ReconcileResult =>
    ({
      _tag: 'Done',
      plan: { actions },
      execution: { done: actions.map((action) => ({ action })) },
    }) as unknown as ReconcileResult;
  const patch = (to: string): Action => ({
    type: 'patch',
    ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a' },
    patch: [],
    changes: [{ path: 'data.mode', from: 'x', to }],
  });
  const create: Action = {
    type: 'create',
    ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a' },
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
    changes: [],
  };

  it('reports once, when one Application keeps sending the same patch', () => {
    const track = convergenceTracker();
    expect(track('shop/web', done([create]))).toEqual([]);
    expect(track('shop/web', done([patch('fast')]))).toEqual([]);
    const report = track('shop/web', done([patch('fast')]));
    expect(report[0]).toMatch(/^Application shop\/web does not converge: from round 2 on/);
    expect(report).toContain('  round 3: patch v1 ConfigMap shop/a: data.mode: "x" → "fast"');
    expect(track('shop/web', done([patch('fast')]))).toEqual([]);
  });

  it('says nothing of a drift corrected once (a quiet reconcile in between starts over)', () => {
    const track = convergenceTracker();
    for (const result of [done([create]), done([patch('fast')]), done([]), done([patch('fast')]), done([])])
      expect(track('shop/web', result)).toEqual([]);
  });
});

/**
 * A mutating admission webhook that strips `minReadySeconds` (the zero value itself is no longer a
 * perpetual diff: the storage model drops it from the plan too, docs/decisions/0021).
 */
const dropMinReadySeconds: MutatingAdmission = {
  name: 'drop-min-ready-seconds',
  group: 'apps',
  kind: 'Deployment',
  mutate: (object) => {
    const spec = object['spec'];
    if (!isJsonObject(spec) || spec['minReadySeconds'] === undefined) return object;
    return withKey(object, 'spec', withoutKey(spec, 'minReadySeconds'));
  },
};

describe('verifyConvergence on a server that drops a value (mutating admission)', () => {
  const deployment: Resource = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      minReadySeconds: 5,
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
  const app: Resource = {
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { manifest: [deployment] },
  };

  it('reports a perpetual diff: the object, the path, the unchanged resourceVersion, the location and the cause', async () => {
    const verdict = await verifyConvergence({
      applications: [app],
      crds: [],
      objects: [],
      scopes: builtinScopes,
      admission: [dropMinReadySeconds],
    });
    if (verdict._tag === 'Left') throw new Error(verdict.left);
    expect(verdict.right).toMatchObject({ _tag: 'Perpetual', since: 2 });
    if (verdict.right._tag !== 'Perpetual') return;
    const [diff, ...others] = perpetualWrites(verdict.right.rounds);
    expect(others).toEqual([]);
    expect(diff).toMatchObject({ object: 'apps/v1 Deployment shop/web', dropped: ['/spec/minReadySeconds'] });
    expect(diff?.unchangedVersion).toMatch(/^\d+$/);
    const located: Array<unknown> = [];
    const lines = describeConvergence(verdict.right, (ref, path) => {
      located.push([ref.kind, ref.name, path]);
      return 'app.yaml:14:9';
    });
    expect(located).toEqual([['Deployment', 'web', ['spec', 'minReadySeconds']]]);
    expect(lines.at(-1)).toBe(
      `  perpetual diff: apps/v1 Deployment shop/web: spec.minReadySeconds (app.yaml:14:9): answered with resourceVersion ${diff?.unchangedVersion} unchanged: ` +
        'the API server drops this value: a zero value of an omitempty field, a default, or a mutating admission; remove it from the manifest or from the observer schema',
    );
  });

  it('converges without the admission (the memory server on this branch keeps the zero value)', async () => {
    const verdict = await verifyConvergence({ applications: [app], crds: [], objects: [], scopes: builtinScopes });
    expect(verdict).toMatchObject({ _tag: 'Right', right: { _tag: 'Converges' } });
  });
});
