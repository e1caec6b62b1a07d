/**
 * `plan --server-dry-run` in-process against the in-memory API server: patches and creates go
 * with dryRun (nothing is stored), a write the server refuses fails the plan, and the flag needs
 * a cluster.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import type { Resource } from '../../core/internal.js';
import { linesOf, runCli } from './support/run-cli.js';

const app = (data: Record<string, string>, extra: ReadonlyArray<Resource> = []): string =>
  JSON.stringify({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      adopt: true,
      manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data }, ...extra],
    },
  });

const GADGET_CRD: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.gate.example.com' },
  spec: {
    group: 'gate.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 } } } },
          },
        },
      },
    ],
  },
};

const clusterWithSettings = async () => {
  const cluster = createMemoryCluster();
  for (const object of [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } },
  ])
    expect(E.isRight(await cluster.create(object as Resource)())).toBe(true);
  return cluster;
};

describe('kreconcile plan --server-dry-run', () => {
  it('sends the patch with dryRun: stored as planned, and nothing changes', async () => {
    const cluster = await clusterWithSettings();
    const result = await runCli(['plan', '-f', 'app.json', '--kubeconfig', 'kc', '--server-dry-run'], {
      files: { 'app.json': app({ a: '2' }) },
      connect: async () => cluster,
      connectWritable: async () => cluster,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Server dry run (dryRun=All: what the API server would store):\n  ✓ patch v1 ConfigMap shop/settings: stored as planned\n',
    );
    const stored = O.toUndefined(
      E.getOrElseW(() => O.none)(
        await cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' })(),
      ),
    );
    expect(stored?.data).toEqual({ a: '1' });
  });

  it('fails when the server would refuse a write, naming it', async () => {
    const cluster = await clusterWithSettings();
    const result = await runCli(['plan', '-f', 'app.json', '--kubeconfig', 'kc', '--server-dry-run'], {
      files: {
        'app.json': app({ a: '1' }, [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'web' },
            spec: { ports: [{ port: 70000 }] },
          },
        ]),
      },
      connect: async () => cluster,
      connectWritable: async () => cluster,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✗ create v1 Service shop\/web: the API server would refuse it: .*port/);
    // The same refusal is found offline too (the rules the server checks beyond the schema), at file:line.
    expect(linesOf(result.stderr)).toEqual([
      expect.stringMatching(
        /^error: app\.json:1:\d+: .*spec\.ports\[0\]\.port: Invalid value: 70000: must be between 1 and 65535/,
      ),
      'error: the server dry run refused a write, would store a field otherwise than the plan sets it, or an object it could not send yet failed its offline check (see "!" and "✗" above): fix spec.manifest',
    ]);
  });

  it('checks offline, in plan order, what needs a Namespace or CRD the plan creates: no false refusal, the real problem found', async () => {
    const cluster = await clusterWithSettings();
    const gadget = (name: string, size: number, namespace?: string): Resource => ({
      apiVersion: 'gate.example.com/v1',
      kind: 'Gadget',
      metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
      spec: { size },
    });
    const run = async (extra: ReadonlyArray<Resource>) =>
      runCli(['plan', '-f', 'app.json', '--kubeconfig', 'kc', '--server-dry-run', '--policy', 'policy.yaml'], {
        files: {
          'app.json': app({ a: '1' }, [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop-new' } },
            GADGET_CRD,
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'conf', namespace: 'shop-new' },
              data: { b: '2' },
            },
            gadget('small', 3, 'shop-new'),
            ...extra,
          ]),
          'policy.yaml': [
            'destinations: [{from: shop, to: ["*"]}]',
            'clusterKinds: [{from: shop, kinds: [Namespace, apiextensions.k8s.io/CustomResourceDefinition]}]',
          ].join('\n'),
        },
        connect: async () => cluster,
        connectWritable: async () => cluster,
      });
    const fine = await run([]);
    expect(fine.stderr).toBe('');
    expect(fine.code).toBe(0);
    const dryRun = fine.stdout.slice(fine.stdout.indexOf('Server dry run'));
    expect(linesOf(dryRun).filter((line) => /^ {2}\S/.test(line))).toEqual([
      '  ✓ create v1 Namespace shop-new: stored as planned',
      '  ✓ create apiextensions.k8s.io/v1 CustomResourceDefinition gadgets.gate.example.com: stored as planned',
      '  · create v1 ConfigMap shop-new/conf: not sent (its Namespace shop-new is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: valid',
      '  · create gate.example.com/v1 Gadget shop-new/small: not sent (its CustomResourceDefinition gadgets.gate.example.com is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: valid',
      // The adopted ConfigMap in the existing namespace: sent as always.
      '  ✓ patch v1 ConfigMap shop/settings: stored as planned',
    ]);
    // Nothing was stored by the dry runs.
    const namespaces = await cluster.list({ apiVersion: 'v1', kind: 'Namespace' })();
    expect(E.isRight(namespaces) && namespaces.right.items.map((n) => n.metadata.name)).not.toContain('shop-new');

    const bad = await run([gadget('big', 30)]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      '  ✗ create gate.example.com/v1 Gadget shop/big: not sent (its CustomResourceDefinition gadgets.gate.example.com is created by this plan; a dry run stores nothing, so the server cannot see it yet): checked offline against its schema instead: 1 problem(s)\n      ✗ spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10',
    );
    expect(bad.stderr).toContain('an object it could not send yet failed its offline check');
  });

  it('needs a cluster', async () => {
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--server-dry-run']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '--server-dry-run sends the plan to a cluster: give it with --kubeconfig or --context',
    );
  });
});
