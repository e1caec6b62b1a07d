/**
 * A minimal kube-controller-manager for the test control plane: garbage collection of
 * ownerReferences, namespace deletion, service accounts and the storage protection finalizers,
 * nothing that needs nodes. Tests that need more start a plane of their own with `extraControllers`
 * (test/support/private-control-plane.ts).
 */
import type { Pki } from './pki.js';
import { httpsGet, type TlsIdentity } from './https-request.js';
import { startProcess, type ManagedProcess } from './managed-process.js';
import { pollUntil } from './poll.js';

export type ControllerManagerOptions = {
  readonly binary: string;
  readonly pki: Pki;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly logPath: string;
  readonly timeoutMs: number;
  readonly identity: TlsIdentity;
  /**
   * Controllers beyond {@link controllers} (a benchmark's Deployments need `deployment-controller` and
   * `replicaset-controller`).
   */
  readonly extraControllers?: ReadonlyArray<string>;
};

/**
 * Canonical controller names (cmd/kube-controller-manager/names); see
 * docs/architecture.md#the-real-api-server-in-the-tests.
 */
export const controllers = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
];

export const controllerManagerArgs = (options: ControllerManagerOptions): ReadonlyArray<string> => [
  `--kubeconfig=${options.kubeconfigPath}`,
  `--controllers=${[...new Set([...controllers, ...(options.extraControllers ?? [])])].join(',')}`,
  `--service-account-private-key-file=${options.pki.serviceAccountKey}`,
  `--root-ca-file=${options.pki.caCert}`,
  '--use-service-account-credentials=false',
  '--leader-elect=false',
  // No serving endpoint (as kwok does): nothing to bind, nothing to collide with.
  '--secure-port=0',
  '--kube-api-qps=100',
  '--kube-api-burst=200',
  '--v=1',
];

/**
 * Starts the controller manager and waits until its serviceaccount controller has created
 * `default/default`: the visible sign that it is connected and its controllers run.
 */
export const startControllerManager = async (options: ControllerManagerOptions): Promise<ManagedProcess> => {
  const kcm = startProcess('kube-controller-manager', options.binary, controllerManagerArgs(options), options.logPath);
  try {
    await pollUntil(
      async () =>
        (await httpsGet(`${options.server}/api/v1/namespaces/default/serviceaccounts/default`, options.identity))
          .status === 200,
      {
        what: 'kube-controller-manager (ServiceAccount default/default)',
        timeoutMs: options.timeoutMs,
        processes: [kcm],
      },
    );
  } catch (error) {
    await kcm.stop();
    throw error;
  }
  return kcm;
};
