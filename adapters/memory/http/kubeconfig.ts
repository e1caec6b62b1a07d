/**
 * The kubeconfig of a loopback endpoint: plain HTTP (client-node requires `insecure-skip-tls-verify` for http://) and a
 * bearer token unless authentication is off.
 */
import { stringify } from 'yaml';

export const kubeconfigYaml = (url: string, token: string | undefined): string =>
  stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kreconcile-memory', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: `kreconcile-memory-${url.replace(/\W+/g, '-')}`, user: token === undefined ? {} : { token } }],
    contexts: [
      {
        name: 'kreconcile-memory',
        context: {
          cluster: 'kreconcile-memory',
          user: `kreconcile-memory-${url.replace(/\W+/g, '-')}`,
          namespace: 'default',
        },
      },
    ],
    'current-context': 'kreconcile-memory',
  });
