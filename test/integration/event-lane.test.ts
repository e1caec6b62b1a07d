/**
 * Events at low priority against kube-apiserver: what the server sees through a counting proxy
 * (the creates before the Events that asked first, never the Event refused unsent) and the Events
 * it stores, with the type, reason and message sent.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, it } from 'vitest';
import { loadKubeConfig } from '../../adapters/kubernetes/kube-config.js';
import { expectEventsAfterNormalRequests } from '../support/event-lane-scenario.js';
import { connect, describeWithApiServer, freshNamespace } from '../support/kubernetes-env.js';

describeWithApiServer('Events in the low-priority lane through a counting proxy (kube-apiserver)', (env) => {
  let namespace: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ namespace, cleanup } = await freshNamespace(connect(env), 'kr-event-lane'));
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('sends the Events after the normal requests queued behind them, refuses one past the bound unsent', async () => {
    const upstream = loadKubeConfig({ kubeconfigPath: env.kubeconfigPath });
    if (E.isLeft(upstream)) throw new Error(upstream.left);
    await expectEventsAfterNormalRequests(upstream.right, namespace);
  }, 60_000);
});
