/**
 * `plan --server-dry-run` in-process against the in-memory API server: patches and creates go
 * with dryRun (nothing is stored), a write the server refuses fails the plan, and the flag needs
 * a cluster.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import type { Resource } from '../../core/index.js';
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
    expect(linesOf(result.stderr)).toEqual([
      'error: the server dry run refused a write or would store a field otherwise than the plan sets it (see "!" and "✗" above): fix spec.manifest',
    ]);
  });

  it('needs a cluster', async () => {
    const result = await runCli(['plan', '-f', 'examples/webapp/app.yaml', '--server-dry-run']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '--server-dry-run sends the plan to a cluster: give it with --kubeconfig or --context',
    );
  });
});
