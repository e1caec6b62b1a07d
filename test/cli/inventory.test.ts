/**
 * The inventory `kreconcile apply` keeps (docs/decisions/0028), in-process on the memory server:
 * recorded before the writes, read by the next plan so a kind removed from the manifest is pruned
 * without the operator, and taken over by the operator's first reconcile of the Application.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../adapters/memory/index.js';
import { intentKindsOf } from '../../app/reconcile/intent-kinds.js';
import { inventoryOf } from '../../app/reconcile/inventory.js';
import { reconcileApplication } from '../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  builtinScopes,
  type ClusterReader,
  type ClusterWriter,
  type Discovery,
  type ObjectRef,
  type Resource,
} from '../../core/internal.js';
import { runCli, type RunOptions } from './support/run-cli.js';
import { NOW } from './support/scenarios.js';

type Writable = ClusterReader & ClusterWriter & Discovery;

const conf: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf' }, data: { a: '1' } };
const deny: Resource = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'deny' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};
const application = (manifest: ReadonlyArray<Resource>): Resource => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  metadata: { name: 'web', namespace: 'shop' },
  spec: { manifest: [...manifest] },
});
const appFiles = {
  'v1.json': JSON.stringify(application([conf, deny])),
  'v2.json': JSON.stringify(application([conf])),
};
const inventoryRef: ObjectRef = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'shop',
  name: 'kreconcile-inventory.web',
};
const denyRef: ObjectRef = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  namespace: 'shop',
  name: 'deny',
};
const appRef: ObjectRef = {
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace: 'shop',
  name: 'web',
};

const read = async (cluster: MemoryCluster, ref: ObjectRef): Promise<Resource | undefined> => {
  const got = await cluster.get(ref)();
  if (E.isLeft(got)) throw new Error(got.left.message);
  return O.toUndefined(got.right);
};

const recordedKinds = async (cluster: MemoryCluster): Promise<ReadonlyArray<string>> =>
  inventoryOf(await read(cluster, inventoryRef))
    .kinds.map((kind) => kind.kind)
    .sort();

/** `cluster`, with every write noted (`verb Kind/name`) and the writes `refuse` names answered Forbidden. */
const noting = (cluster: MemoryCluster, writes: string[], refuse: ReadonlySet<string> = new Set()): Writable => {
  const refused = (what: string) => () =>
    Promise.resolve(E.left({ _tag: 'Forbidden' as const, message: `${what} is forbidden`, code: 403, ref: undefined }));
  return {
    ...cluster,
    create: (object, options) => {
      const what = `create ${object.kind}/${object.metadata.name}`;
      writes.push(what);
      return refuse.has(what) ? refused(what) : cluster.create(object, options);
    },
    update: (object, options) => {
      writes.push(`update ${object.kind}/${object.metadata.name}`);
      return cluster.update(object, options);
    },
    delete: (target, options) => {
      const what = `delete ${target.kind}/${target.name}`;
      writes.push(what);
      return refuse.has(what) ? refused(what) : cluster.delete(target, options);
    },
  };
};

describe('the inventory kreconcile apply keeps', () => {
  let dir: string;
  let cluster: MemoryCluster;
  const live = (writer: Writable = cluster): RunOptions => ({
    files: appFiles,
    connect: async () => writer,
    connectWritable: async () => writer,
  });
  const planAndApply = async (file: string, writer?: Writable) => {
    const out = join(dir, `${file}.plan.json`);
    const planned = await runCli(['plan', '-f', file, '--kubeconfig', 'kc', '--now', NOW, '--out', out], live(writer));
    const applied = await runCli(['apply', out, '--kubeconfig', 'kc'], live(writer));
    return { planned, applied };
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kr-inventory-'));
    cluster = createMemoryCluster({ clock: new ManualClock() });
    await cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records the objects before creating them, and the next plan prunes a kind removed from the manifest', async () => {
    const writes: string[] = [];
    const first = await planAndApply('v1.json', noting(cluster, writes));
    expect(first.applied).toMatchObject({ code: 0, stderr: '' });
    // Write-ahead: the record is written before the first create.
    expect(writes).toEqual([
      'create ConfigMap/kreconcile-inventory.web',
      'create NetworkPolicy/deny',
      'create ConfigMap/conf',
    ]);
    expect(await recordedKinds(cluster)).toEqual(['ConfigMap', 'NetworkPolicy']);

    const second = await planAndApply('v2.json');
    // Without the inventory nothing would list NetworkPolicies: "0 to delete", and the object would stay.
    expect(second.planned.stdout).toContain('- networking.k8s.io/v1 NetworkPolicy shop/deny (removed from spec)');
    expect(second.planned.stdout).toContain('Plan: 0 to create, 0 to patch, 1 to delete.');
    expect(second.applied).toMatchObject({ code: 0, stderr: '' });
    expect(await read(cluster, denyRef)).toBeUndefined();
    // The record drops the object deleted, and its kind with its last object; the inventory itself is never pruned.
    expect(await recordedKinds(cluster)).toEqual(['ConfigMap']);
    expect(await read(cluster, inventoryRef)).toBeDefined();
  });

  it('snapshot records the objects of the inventory kinds, so an offline plan from it prunes as well', async () => {
    expect((await planAndApply('v1.json')).applied).toMatchObject({ code: 0 });
    const recorded = await runCli(['snapshot', '-f', 'v2.json', '--kubeconfig', 'kc', '-o', 'json'], live());
    expect(recorded).toMatchObject({ code: 0, stderr: '' });
    const kinds = (JSON.parse(recorded.stdout) as { items: Resource[] }).items.map((o) => o.kind).sort();
    expect(kinds).toEqual(['ConfigMap', 'NetworkPolicy']);
    const offline = await runCli(['plan', '-f', 'v2.json', '--snapshot', 'live.json', '--now', NOW], {
      files: { ...appFiles, 'live.json': recorded.stdout },
    });
    expect(offline.stdout).toContain('- networking.k8s.io/v1 NetworkPolicy shop/deny (removed from spec)');
  });

  it('a failed write leaves everything created recorded, and a failed delete leaves the object recorded', async () => {
    const writes: string[] = [];
    const failing = await planAndApply('v1.json', noting(cluster, writes, new Set(['create ConfigMap/conf'])));
    expect(failing.applied.code).toBe(1);
    expect(writes).toEqual([
      'create ConfigMap/kreconcile-inventory.web',
      'create NetworkPolicy/deny',
      'create ConfigMap/conf',
    ]);
    expect(await recordedKinds(cluster)).toEqual(['ConfigMap', 'NetworkPolicy']);

    expect((await planAndApply('v1.json')).applied).toMatchObject({ code: 0 });
    const refusedDelete = await planAndApply('v2.json', noting(cluster, [], new Set(['delete NetworkPolicy/deny'])));
    expect(refusedDelete.applied.code).toBe(1);
    expect(await recordedKinds(cluster)).toEqual(['ConfigMap', 'NetworkPolicy']);
    // And the next plan still prunes it.
    expect((await planAndApply('v2.json')).applied.stdout).toContain('Applied: 0 created, 0 patched, 1 deleted.');
  });

  it('an Application that creates its own Namespace: the Namespace first, then the record there, then the rest', async () => {
    const own = {
      ...application([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } }, conf]),
      metadata: { name: 'web', namespace: 'fresh' },
    };
    const writes: string[] = [];
    const out = join(dir, 'own.plan.json');
    const options = {
      ...live(noting(cluster, writes)),
      files: { 'own.json': JSON.stringify(own), 'policy.yaml': 'clusterKinds: [{from: fresh, kinds: [Namespace]}]' },
    };
    const planned = await runCli(
      ['plan', '-f', 'own.json', '--kubeconfig', 'kc', '--now', NOW, '--policy', 'policy.yaml', '--out', out],
      options,
    );
    expect(planned.stderr).toBe('');
    const applied = await runCli(['apply', out, '--kubeconfig', 'kc'], options);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(writes).toEqual([
      'create Namespace/fresh',
      'create ConfigMap/kreconcile-inventory.web',
      'create ConfigMap/conf',
    ]);
    expect(inventoryOf(await read(cluster, { ...inventoryRef, namespace: 'fresh' })).kinds.map((k) => k.kind)).toEqual([
      'Namespace',
      'ConfigMap',
    ]);
  });

  it('refuses to apply, writing nothing, when the inventory cannot be written', async () => {
    const writes: string[] = [];
    const refused = await planAndApply(
      'v1.json',
      noting(cluster, writes, new Set(['create ConfigMap/kreconcile-inventory.web'])),
    );
    expect(refused.applied.code).toBe(1);
    expect(refused.applied.stderr).toContain(
      'Application shop/web: cannot record the inventory (ConfigMap shop/kreconcile-inventory.web): ',
    );
    expect(refused.applied.stderr).toContain('nothing of this Application was applied');
    expect(writes).toEqual(['create ConfigMap/kreconcile-inventory.web']);
  });

  it('the operator takes over: its first reconcile reads the inventory, prunes the removed kind and records it', async () => {
    expect((await planAndApply('v1.json')).applied).toMatchObject({ code: 0 });
    // The Application (now without the NetworkPolicy) is handed to the operator.
    await cluster.create(application([conf]))();
    const clock = new ManualClock();
    const result = await reconcileApplication(appRef, {
      cluster,
      scopes: builtinScopes,
      now: () => new Date(clock.now()).toISOString(),
      random: () => 0.5,
      planOptions: { readiness: 'existence' },
    });
    expect(result._tag).toBe('Done');
    expect(await read(cluster, denyRef)).toBeUndefined();
    const stored = await read(cluster, appRef);
    if (stored === undefined) throw new Error('the Application is gone');
    // The kinds taken over are in the operator's own record, written with the finalizer before the delete.
    expect(intentKindsOf(stored).map((kind) => kind.kind)).toContain('NetworkPolicy');
  });
});
