/** The kubeconfig of a test control plane: one cluster, the admin client-certificate user. */
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

const base64File = (path: string): string => readFileSync(path).toString('base64');

/** Renders a kubeconfig that both @kubernetes/client-node and kubectl accept. */
export const kubeconfigYaml = (server: string, pem: { caCert: string; adminCert: string; adminKey: string }): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'kreconcile-envtest', cluster: { server, 'certificate-authority-data': base64File(pem.caCert) } },
    ],
    // A unique user name: client-node caches credentials by user name (#592).
    users: [
      {
        name: 'kreconcile-envtest-admin',
        user: { 'client-certificate-data': base64File(pem.adminCert), 'client-key-data': base64File(pem.adminKey) },
      },
    ],
    contexts: [
      {
        name: 'kreconcile-envtest',
        context: { cluster: 'kreconcile-envtest', user: 'kreconcile-envtest-admin', namespace: 'default' },
      },
    ],
    'current-context': 'kreconcile-envtest',
  });

export const writeKubeconfig = (
  path: string,
  server: string,
  pem: { caCert: string; adminCert: string; adminKey: string },
): void => writeFileSync(path, kubeconfigYaml(server, pem), { mode: 0o600 });
