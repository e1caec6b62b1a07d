/**
 * Events at low priority on the wire: the Kubernetes adapter on the memory cluster's HTTP endpoint,
 * every request seen by a loopback proxy (the real API server: test/integration/event-lane.test.ts).
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { loadKubeConfig } from '../../../adapters/kubernetes/kube-config.js';
import { serveMemoryCluster, type ServedCluster } from '../../../adapters/memory/http/index.js';
import { createMemoryCluster } from '../../../adapters/memory/index.js';
import { expectEventsAfterNormalRequests } from '../../support/event-lane-scenario.js';

describe('Events in the low-priority lane through a counting proxy (memory cluster over HTTP)', () => {
  let served: ServedCluster;
  beforeAll(async () => {
    served = await serveMemoryCluster(createMemoryCluster());
  });
  afterAll(async () => {
    await served.close();
  });

  it('sends the Events after the normal requests queued behind them, refuses one past the bound unsent', async () => {
    const upstream = loadKubeConfig({ kubeconfigYaml: served.kubeconfig });
    if (E.isLeft(upstream)) throw new Error(upstream.left);
    await expectEventsAfterNormalRequests(upstream.right, 'default');
  }, 30_000);
});
