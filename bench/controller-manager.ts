/**
 * The kube-controller-manager the fleet benchmarks run beside the test control plane (which starts
 * none of its own for them): deployment and replicaset (a Deployment's status, which readiness
 * reads), serviceaccount, namespace and garbage collection, at QPS 100 / burst 200 so it keeps up
 * with a burst of Deployments (at its default QPS 20 it lags more than the first-status grace behind
 * 100 of them). `bench:fleet` and `bench/request-log.ts` start the same one, so their figures agree.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { join } from 'node:path';
import type { KubernetesCluster } from '../adapters/kubernetes/index.js';
import type { ControlPlane } from '../tools/envtest/control-plane.js';
import { startProcess, type ManagedProcess } from '../tools/envtest/managed-process.js';

/** Starts it and resolves once it is connected: its serviceaccount controller has created default/default. */
export const startFleetControllerManager = async (
  binary: string,
  plane: ControlPlane,
  cluster: KubernetesCluster,
  logName = 'kube-controller-manager-fleet.log',
): Promise<ManagedProcess> => {
  const kcm = startProcess(
    'kube-controller-manager',
    binary,
    [
      `--kubeconfig=${plane.kubeconfigPath}`,
      '--controllers=deployment-controller,replicaset-controller,serviceaccount-controller,namespace-controller,garbage-collector-controller',
      '--use-service-account-credentials=false',
      '--leader-elect=false',
      '--secure-port=0',
      '--kube-api-qps=100',
      '--kube-api-burst=200',
      '--v=1',
    ],
    join(plane.dir, logName),
  );
  for (let waited = 0; ; waited += 200) {
    const account = await cluster.get({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      namespace: 'default',
      name: 'default',
    })();
    if (E.isRight(account) && O.isSome(account.right)) return kcm;
    if (!kcm.isRunning() || waited > 120_000) {
      await kcm.stop();
      throw new Error(`kube-controller-manager did not start; see ${kcm.logPath}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
