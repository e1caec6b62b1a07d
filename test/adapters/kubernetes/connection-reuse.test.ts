/**
 * The REST client keeps its TLS connection: client-node 2.0 builds a new undici Agent per request,
 * which would cost a TLS handshake per request on both sides. Checked against a local HTTPS server
 * that counts the TLS connections it accepts; authentication still goes on every request.
 */
import * as E from 'fp-ts/lib/Either.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadKubeConfig } from '../../../adapters/kubernetes/kube-config.js';
import { createRestClient } from '../../../adapters/kubernetes/rest-client.js';
import { generatePki } from '../../../tools/envtest/pki.js';

describe('the Kubernetes REST client over TLS', () => {
  let dir: string;
  let server: Server;
  let kubeconfigYaml: string;
  let connections = 0;
  const authorizations: Array<string | undefined> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kreconcile-tls-'));
    const pki = await generatePki(dir);
    server = createServer(
      { cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) },
      (request, response) => {
        authorizations.push(request.headers.authorization);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'settings' } }));
      },
    );
    server.on('secureConnection', () => {
      connections++;
    });
    await new Promise<void>((resolve) => {
      server.listen(0, '127.0.0.1', resolve);
    });
    kubeconfigYaml = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'local',
          cluster: {
            server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
            'certificate-authority-data': readFileSync(pki.caCert).toString('base64'),
          },
        },
      ],
      users: [{ name: 'reader', user: { token: 'secret-token' } }],
      contexts: [{ name: 'local', context: { cluster: 'local', user: 'reader' } }],
      'current-context': 'local',
    });
  }, 60_000);

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
    });
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends many requests over a connection or two, not one each, every request authenticated', async () => {
    const kubeConfig = loadKubeConfig({ kubeconfigYaml });
    if (E.isLeft(kubeConfig)) throw new Error(kubeConfig.left);
    const rest = createRestClient(kubeConfig.right, 10_000);
    for (let i = 0; i < 20; i++)
      expect(
        E.isRight(await rest.send({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/settings' })()),
      ).toBe(true);
    // undici may open a second socket while the first still finishes a response: never one per request.
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(connections).toBeLessThanOrEqual(2);
    expect(authorizations).toEqual(Array.from({ length: 20 }, () => 'Bearer secret-token'));
  });
});
