/**
 * What runs where (docs/testing.md §0): the kit loads and serves its cluster on a Node older than
 * 22.19, while @kubernetes/client-node 2 cannot even be imported there. Runs on a machine whose
 * PATH has such a Node (many have 20); the statements are about that Node, not the test runner's.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { supportedNode } from '../../../app/cli/node-version.js';

const oldNode = spawnSync('sh', ['-c', 'which -a node'], { encoding: 'utf8' })
  .stdout.split('\n')
  .find((path) => {
    if (path === '') return false;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return version !== '' && !supportedNode(version);
  });

const onOldNode = (script: string) =>
  spawnSync(oldNode ?? 'node', ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });

describe.skipIf(oldNode === undefined)(`on this machine's older Node (${oldNode ?? 'none'})`, () => {
  it('the kit loads, and serves its in-memory cluster over HTTP', () => {
    const result = onOldNode(`
      import { createMemoryCluster, serveMemoryCluster } from './app/testing/index.ts';
      const served = await serveMemoryCluster(createMemoryCluster(), { auth: 'none' });
      const answer = await fetch(served.url + '/api/v1/namespaces');
      const names = (await answer.json()).items.map((n) => n.metadata.name);
      await served.close();
      console.log(process.versions.node, answer.status, names.join(','));
    `);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+ 200 default,kube-public,kube-system\n$/);
  });

  it('importing @kubernetes/client-node fails inside undici', () => {
    const result = onOldNode(`
      try { await import('@kubernetes/client-node'); console.log('loaded'); }
      catch (error) { console.log('failed: ' + error.message); }
    `);
    expect(result.stdout).not.toContain('loaded');
    expect(result.stdout + result.stderr).toMatch(/Cannot read properties of undefined \(reading 'bind'\)/);
  });
});
