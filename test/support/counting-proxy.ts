/**
 * A loopback proxy in the manner of `kubectl proxy`: plain HTTP on 127.0.0.1, forwarding every
 * request to the upstream API server with the upstream kubeconfig's own credentials (client
 * certificate or bearer token), and recording when each request arrived. Clients given its
 * kubeconfig carry no credentials; impersonation headers pass through untouched.
 */
import type { KubernetesCluster } from '../../adapters/kubernetes/index.js';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';

// client-node's KubeConfig, named through the adapter (only the adapter imports client-node).
type KubeConfig = KubernetesCluster['kubeConfig'];

export type CountingProxy = {
  /** A kubeconfig for the proxy (no credentials: the proxy adds the upstream's). */
  readonly kubeconfigYaml: string;
  /** Arrival time (ms, performance.now()) and request line of every request so far. */
  readonly arrivals: ReadonlyArray<{ readonly at: number; readonly line: string }>;
  close(): Promise<void>;
};

const decode = (data: string | undefined): Buffer | undefined =>
  data === undefined ? undefined : Buffer.from(data, 'base64');

export const startCountingProxy = async (upstream: KubeConfig): Promise<CountingProxy> => {
  const cluster = upstream.getCurrentCluster();
  const user = upstream.getCurrentUser();
  if (cluster === null) throw new Error('the upstream kubeconfig names no cluster');
  const target = new URL(cluster.server);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const arrivals: Array<{ at: number; line: string }> = [];

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    arrivals.push({ at: performance.now(), line: `${incoming.method ?? ''} ${incoming.url ?? ''}` });
    const headers = { ...incoming.headers, host: target.host };
    delete headers.authorization;
    if (user?.token !== undefined) headers.authorization = `Bearer ${user.token}`;
    const upstreamRequest = send(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers,
        ca: decode(cluster.caData),
        cert: decode(user?.certData),
        key: decode(user?.keyData),
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstreamRequest.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`proxy: ${error.message}`);
    });
    incoming.pipe(upstreamRequest);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    kubeconfigYaml: stringify({
      apiVersion: 'v1',
      kind: 'Config',
      // client-node refuses plain HTTP unless told: the hop is loopback only.
      clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'proxy', user: {} }],
      contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'proxy' } }],
      'current-context': 'proxy',
    }),
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** The most arrivals in any window of `windowMs` (the busiest windows start at an arrival). */
export const busiestWindow = (times: ReadonlyArray<number>, windowMs: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] ?? 0) < (sorted[i] ?? 0) + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
};
