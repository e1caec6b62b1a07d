/**
 * `--qps`/`--burst` held against kube-apiserver: every request of the adapter (discovery, the
 * operator's own reads, impersonated reads) counted by a loopback proxy in front of the server.
 */
import * as E from 'fp-ts/lib/Either.js';
import { it } from 'vitest';
import { loadKubeConfig } from '../../adapters/kubernetes/kube-config.js';
import { describeWithApiServer } from '../support/kubernetes-env.js';
import { expectHeldUnderQps, floodThroughProxy } from '../support/flow-control-scenario.js';

describeWithApiServer('flow control through a counting proxy (kube-apiserver)', (env) => {
  it('holds the request rate under qps, the operator and impersonated clients together', async () => {
    const upstream = loadKubeConfig({ kubeconfigPath: env.kubeconfigPath });
    if (E.isLeft(upstream)) throw new Error(upstream.left);
    const settings = { qps: 20, burst: 5, requests: 60 };
    expectHeldUnderQps(await floodThroughProxy(upstream.right, 'default', settings), settings);
  }, 60_000);
});
