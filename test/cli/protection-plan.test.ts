/**
 * The plan shows each protection choice (issue 22): a write withheld by `kreconcile.io/apply`
 * is a `skip` entry — `IfNotPresent` on a drifted object ("N fields drifted, not patched"),
 * `Ignore` on a missing one ("missing, not created") — and `prune: disabled` an orphaning patch.
 * Golden text, JSON (valid against docs/plan-output.schema.json, `orphan` included) and markdown;
 * the saved plan keeps them for `show`; `apply` sends none of the skips; a guard rule never sees
 * them; Secret values never appear.
 */
import { Ajv } from 'ajv';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import type { SavedPlanV1 } from '../../app/cli/saved-plan/format.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type ObjectRef, type Resource } from '../../core/internal.js';
import { expectGolden } from './support/golden.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

const MINE = 'mine-canary-7d3a';
const THEIRS = 'theirs-canary-04be';
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const configMap = (name: string, mode: string, annotations?: Record<string, string>): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(annotations === undefined ? {} : { annotations }) },
  data: { mode },
});
const secret: Resource = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', annotations: { 'kreconcile.io/apply': 'IfNotPresent' } },
  data: { password: b64(MINE) },
};
const IF_NOT_PRESENT = { 'kreconcile.io/apply': 'IfNotPresent' };

const application = (manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name: 'web', namespace: 'shop' },
  spec: { manifest: [...manifest] },
});

const V1 = [
  configMap('settings', 'a'),
  configMap('seeded', 'a', IF_NOT_PRESENT),
  configMap('kept', 'a', { 'kreconcile.io/prune': 'disabled' }),
  secret,
];
// `kept` leaves the manifest; `ignored` joins it under Ignore.
const V2 = [
  configMap('settings', 'a'),
  configMap('seeded', 'a', IF_NOT_PRESENT),
  secret,
  configMap('ignored', 'a', { 'kreconcile.io/apply': 'Ignore' }),
];

const FILES = {
  'v1.yaml': stringify(application(V1)),
  'v2.yaml': stringify(application(V2)),
  'guard.yaml': 'rules:\n  - name: no-secret-patches\n    deny: { actions: [patch, create], kinds: [Secret] }\n',
};

const ref = (kind: string, name: string): ObjectRef => ({ apiVersion: 'v1', kind, namespace: 'shop', name });
const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'web',
};

/** Object uids and the Application's are random: golden outputs name them by a placeholder. */
const stable = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    // A plan digest covers the ownerReferences it removes, which name the uid.
    .replace(/(Plan digest of Application \S+: )sha256:[0-9a-f]{64}/g, '$1sha256:<digest>')
    // When another manager wrote a field (field owners under the plan): the memory server's own clock.
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, (time) => (time === NOW ? time : '<time>'));

describe('plan output of protection annotations', () => {
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
  const read = async (target: ObjectRef): Promise<Resource | undefined> => {
    const got = await cluster.get(target)();
    return E.isRight(got) ? O.toUndefined(got.right) : undefined;
  };
  const drift = async (target: ObjectRef, data: Record<string, string>) =>
    expect(E.isRight(await cluster.patch(target, { type: 'merge', body: { data } })())).toBe(true);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-protection-'));
    cluster = createMemoryCluster();
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
    await cluster.create(application(V1))();
    // What the operator's status records of the children: the kinds its live reads cover.
    const recorded = V1.map((child) => ({ ...child, metadata: { ...child.metadata, namespace: 'shop' } }));
    await cluster.patchStatus(appRef, { type: 'merge', body: { status: { lastAppliedManifest: recorded } } })();
    const out = join(dir, 'v1.json');
    expect((await plan('v1.yaml', ['--out', out, '--allow-secret-values'])).code).toBe(0);
    expect(await runCli(['apply', out, '--kubeconfig', 'kc'], live())).toMatchObject({ code: 0, stderr: '' });
    // Another actor changes what kreconcile created.
    await drift(ref('ConfigMap', 'settings'), { mode: 'theirs' });
    await drift(ref('ConfigMap', 'seeded'), { mode: 'theirs' });
    await drift(ref('Secret', 'db'), { password: b64(THEIRS) });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const noSecrets = (text: string): void => {
    for (const value of [MINE, THEIRS, b64(MINE), b64(THEIRS)]) expect(text).not.toContain(value);
  };

  it('text: a skip line per withheld write, the orphaning, the summary counts skips apart from changes', async () => {
    const result = await plan('v2.yaml');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/protection/plan.txt', stable(result.stdout));
    expect(result.stdout).toContain(
      '  ~ skip (apply: IfNotPresent) v1 ConfigMap shop/seeded, 1 field drifted, not patched\n',
    );
    expect(result.stdout).toContain('  + skip (apply: Ignore) v1 ConfigMap shop/ignored, missing, not created\n');
    expect(result.stdout).toContain('  ~ skip (apply: IfNotPresent) v1 Secret shop/db, 1 field drifted, not patched\n');
    expect(result.stdout).toContain('(orphan: kreconcile.io/prune: disabled, removed from spec;');
    expect(result.stdout).toContain('Plan: 0 to create, 2 to patch, 0 to delete, 3 skipped.');
    noSecrets(result.stdout);
  });

  it('JSON (valid against the published schema) carries skip entries, orphan and the skip count', async () => {
    const result = await plan('v2.yaml', ['-o', 'json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/protection/plan.json', stable(result.stdout));
    const document = JSON.parse(result.stdout) as PlanDocumentV1;
    const validate = new Ajv({ allErrors: true }).compile(
      JSON.parse(readFileSync('docs/plan-output.schema.json', 'utf8')) as object,
    );
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    const actions = document.applications[0]?.actions ?? [];
    expect(actions.filter((a) => a.type === 'skip')).toEqual([
      {
        type: 'skip',
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'ignored' },
        apply: 'Ignore',
        withheld: 'create',
        changes: [],
      },
      {
        type: 'skip',
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'seeded' },
        apply: 'IfNotPresent',
        withheld: 'patch',
        changes: [{ path: 'data.mode', from: 'theirs', to: 'a' }],
      },
      expect.objectContaining({ type: 'skip', apply: 'IfNotPresent', withheld: 'patch' }) as unknown,
    ]);
    expect(actions.find((a) => a.type === 'patch' && a.resource.name === 'kept')).toMatchObject({
      orphan: 'RemovedFromSpec',
    });
    expect(document.summary).toEqual({ create: 0, patch: 2, delete: 0, conflict: 0, skip: 3, changes: true });
    noSecrets(result.stdout);
  });

  it('markdown: skips counted in the totals and listed per object with the drift they leave', async () => {
    const result = await plan('v2.yaml', ['-o', 'markdown']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/protection/plan.md', stable(result.stdout));
    expect(result.stdout).toContain('| skip | ConfigMap | 2 |');
    expect(result.stdout).toContain(
      '- `·` skip v1 ConfigMap shop/seeded (apply: IfNotPresent), 1 field drifted, not patched',
    );
    expect(result.stdout).toContain('0 to create, 2 to patch, 0 to delete, 3 skipped</summary>');
    noSecrets(result.stdout);
  });

  it('a saved plan keeps the skips for show; apply sends none of them; a guard rule never sees them', async () => {
    // The pipeline applies the Application's new spec, then the saved plan (no operator runs).
    await cluster.patch(appRef, { type: 'merge', body: { spec: { manifest: V2 } } })();
    const out = join(dir, 'v2.json');
    expect((await plan('v2.yaml', ['--out', out])).code).toBe(0);
    const saved = readFileSync(out, 'utf8');
    noSecrets(saved);
    const actions = (JSON.parse(saved) as SavedPlanV1).applications[0]?.actions ?? [];
    expect(actions.map((a) => [a.type, a.resource.name])).toEqual([
      ['patch', 'settings'],
      ['patch', 'kept'],
      ['skip', 'ignored'],
      ['skip', 'seeded'],
      ['skip', 'db'],
    ]);
    const shown = await runCli(['show', out], live());
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expectGolden('test/cli/golden/protection/show.txt', stable(shown.stdout.replace(out, 'v2.json')));
    const shownJson = JSON.parse((await runCli(['show', out, '-o', 'json'], live())).stdout) as PlanDocumentV1;
    const planJson = JSON.parse((await plan('v2.yaml', ['-o', 'json'])).stdout) as PlanDocumentV1;
    // Finalizer bookkeeping is the operator's: a saved plan leaves it out.
    expect(shownJson.applications[0]?.actions).toEqual(
      planJson.applications[0]?.actions.filter((a) => a.type !== 'addFinalizer'),
    );
    expect(shownJson.summary).toEqual(planJson.summary);

    const applied = await runCli(['apply', out, '--kubeconfig', 'kc'], live());
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied: 0 created, 2 patched, 0 deleted.');
    expect((await read(ref('ConfigMap', 'settings')))?.data).toEqual({ mode: 'a' });
    expect((await read(ref('ConfigMap', 'seeded')))?.data).toEqual({ mode: 'theirs' });
    expect((await read(ref('Secret', 'db')))?.data).toEqual({ password: b64(THEIRS) });
    expect(await read(ref('ConfigMap', 'ignored'))).toBeUndefined();
    expect((await read(ref('ConfigMap', 'kept')))?.metadata.annotations?.['kreconcile.io/owner']).toBeUndefined();

    // The only Secret entry is a skip: a rule denying Secret writes has nothing to deny.
    expect(await plan('v2.yaml', ['--guard', 'guard.yaml'])).toMatchObject({ code: 0, stderr: '' });
  });
});
