/** kube-apiserver for a test control plane: the envtest flag set on loopback, plus readiness via `/readyz`. */
import type { Pki } from './pki.js';
import { httpsGet, type TlsIdentity } from './https-request.js';
import { startProcess, type ManagedProcess } from './managed-process.js';
import { pollUntil } from './poll.js';

export type ApiServerOptions = {
  readonly binary: string;
  readonly pki: Pki;
  readonly certDir: string;
  readonly port: number;
  readonly etcdPort: number;
  readonly logPath: string;
  readonly timeoutMs: number;
  readonly identity: TlsIdentity;
};

// Flags from controller-runtime envtest's defaults (docs/architecture.md#the-real-api-server-in-the-tests); APF and
// profiling off to save CPU on small machines.
export const apiServerArgs = (options: ApiServerOptions): ReadonlyArray<string> => [
  `--etcd-servers=http://127.0.0.1:${options.etcdPort}`,
  '--bind-address=127.0.0.1',
  `--secure-port=${options.port}`,
  // Loopback advertise address + no endpoint reconciler: nothing names the host's real interface.
  '--advertise-address=127.0.0.1',
  '--endpoint-reconciler-type=none',
  `--cert-dir=${options.certDir}`,
  `--tls-cert-file=${options.pki.servingCert}`,
  `--tls-private-key-file=${options.pki.servingKey}`,
  `--client-ca-file=${options.pki.caCert}`,
  '--authorization-mode=RBAC',
  `--service-account-issuer=https://127.0.0.1:${options.port}/`,
  `--service-account-key-file=${options.pki.serviceAccountPub}`,
  `--service-account-signing-key-file=${options.pki.serviceAccountKey}`,
  '--service-cluster-ip-range=10.0.0.0/24',
  // No default ServiceAccount exists until the controller manager runs; keep Pod creation working anyway.
  '--disable-admission-plugins=ServiceAccount',
  '--allow-privileged=true',
  '--enable-priority-and-fairness=false',
  '--profiling=false',
  '--v=1',
];

/** Waits for `/readyz` (all post-start hooks done) and the `default` namespace. */
export const waitApiServerReady = async (
  server: string,
  apiServer: ManagedProcess,
  options: Pick<ApiServerOptions, 'identity' | 'timeoutMs'>,
): Promise<void> => {
  const readyz = async (): Promise<boolean> => (await httpsGet(`${server}/readyz`, options.identity)).status === 200;
  await pollUntil(readyz, {
    what: `${server}/readyz`,
    timeoutMs: options.timeoutMs,
    processes: [apiServer],
    explain: async () => {
      const verbose = await httpsGet(`${server}/readyz?verbose`, options.identity);
      return `/readyz?verbose (${verbose.status}):\n${verbose.body}`;
    },
  });
  // The default namespace is created asynchronously by the system-namespaces controller.
  await pollUntil(
    async () => (await httpsGet(`${server}/api/v1/namespaces/default`, options.identity)).status === 200,
    { what: 'namespace default', timeoutMs: 30_000, processes: [apiServer] },
  );
};

/** Starts the apiserver and waits until it is ready. */
export const startApiServer = async (options: ApiServerOptions): Promise<ManagedProcess> => {
  const apiServer = startProcess('kube-apiserver', options.binary, apiServerArgs(options), options.logPath);
  try {
    await waitApiServerReady(`https://127.0.0.1:${options.port}`, apiServer, options);
  } catch (error) {
    await apiServer.stop();
    throw error;
  }
  return apiServer;
};
