/**
 * `--qps`/`--burst` held on the wire: the Kubernetes adapter on the memory cluster's HTTP
 * endpoint, every request counted by a loopback proxy (the real API server: test/integration/flow-control.test.ts).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadKubeConfig } from '../../../adapters/kubernetes/kube-config.js';
import { serveMemoryCluster, type ServedCluster } from '../../../adapters/memory/http/index.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { expectHeldUnderQps, floodThroughProxy } from '../../support/flow-control-scenario.js';

describe('flow control through a counting proxy (memory cluster over HTTP)', () => {
  let served: ServedCluster;
  beforeAll(async () => {
    served = await serveMemoryCluster(createMemoryCluster());
  });
  afterAll(async () => {
    await served.close();
  });

  it('holds the request rate under qps, the operator and impersonated clients together', async () => {
    const upstream = loadKubeConfig({ kubeconfigYaml: served.kubeconfig });
    if (E.isLeft(upstream)) throw new Error(upstream.left);
    const settings = { qps: 20, burst: 5, requests: 60 };
    expectHeldUnderQps(await floodThroughProxy(upstream.right, 'default', settings), settings);
  }, 30_000);
});
