/**
 * Flow control seen from the API server's side: a burst of reads (half as the operator, half
 * impersonating a ServiceAccount) through a counting loopback proxy, with every arrival timed
 * there. Both sides (memory over HTTP, kube-apiserver) assert the same bounds on the arrivals.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'vitest';
import { createKubernetesCluster, type KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { busiestWindow, startCountingProxy } from './counting-proxy.js';

export type FloodSettings = { readonly qps: number; readonly burst: number; readonly requests: number };

/**
 * The arrival times the proxy saw (discovery included), and the longest the event loop stalled meanwhile: the proxy
 * runs in this process, so requests the client sent 1/qps apart during a stall of the loop (a loaded CI machine,
 * a garbage collection) are timed together when it resumes.
 */
export type Flood = { readonly arrivals: ReadonlyArray<number>; readonly stallMs: number };

/** Sends `requests` reads at once. */
export const floodThroughProxy = async (
  upstream: KubernetesCluster['kubeConfig'],
  namespace: string,
  settings: FloodSettings,
): Promise<Flood> => {
  const proxy = await startCountingProxy(upstream);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  try {
    const cluster = createKubernetesCluster(
      { kubeconfigYaml: proxy.kubeconfigYaml },
      { flowControl: { qps: settings.qps, burst: settings.burst, maxInFlight: 64 } },
    );
    const tenant = cluster.impersonate({ namespace, name: 'default' });
    await Promise.all(
      Array.from({ length: settings.requests }, (_, index) =>
        (index % 2 === 0 ? cluster : tenant).get({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace,
          name: `absent-${index}`,
        })(),
      ),
    );
    return { arrivals: proxy.arrivals.map((arrival) => arrival.at), stallMs: loop.max / 1e6 };
  } finally {
    loop.disable();
    await proxy.close();
  }
};

// Arrivals are timed at the proxy, after the loopback hop: two requests granted 1/qps apart may
// land closer, so a window may catch one more request at each edge than the client granted in it.
const jitterAllowance = 2;

/**
 * The client's promise, counted: at most burst + qps·W requests in any window W, whoever they
 * were sent as; and the limit bound: the last arrival is no earlier than the refill allows. A stall of
 * the loop for S ms can time together what the client granted over S: the window bound grows by qps·S
 * (the lower bound on the span does not: a stall only delays).
 */
export const expectHeldUnderQps = ({ arrivals, stallMs }: Flood, settings: FloodSettings): void => {
  expect(arrivals.length).toBeGreaterThanOrEqual(settings.requests);
  const stalled = Math.ceil((settings.qps * stallMs) / 1_000);
  for (const windowMs of [250, 1_000, 2_000])
    expect(busiestWindow(arrivals, windowMs)).toBeLessThanOrEqual(
      settings.burst + Math.ceil((settings.qps * windowMs) / 1_000) + jitterAllowance + stalled,
    );
  const spanMs = Math.max(...arrivals) - Math.min(...arrivals);
  expect(spanMs).toBeGreaterThanOrEqual(((arrivals.length - settings.burst - jitterAllowance) / settings.qps) * 1_000);
};
