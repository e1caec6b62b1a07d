/**
 * A GET with any `Accept` against the server of an envtest kubeconfig (client certificate and
 * certificate authority data), for tools and tests that need what the typed adapter does not ask
 * for (server-side printing's Tables). Tools do not import @kubernetes/client-node.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';
import { getIn, isJsonObject, parseJsonText, type JsonValue } from '../../core/json/json.js';

export type KubeconfigServer = {
  readonly url: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
};

export const kubeconfigServer = (kubeconfigPath: string): KubeconfigServer => {
  const config: unknown = parse(readFileSync(kubeconfigPath, 'utf8'));
  const field = (path: ReadonlyArray<string | number>): string => {
    const value = isJsonObject(config) ? getIn(config, path) : undefined;
    if (typeof value !== 'string') throw new Error(`${kubeconfigPath}: no ${path.join('.')}`);
    return value;
  };
  const decoded = (path: ReadonlyArray<string | number>): string => Buffer.from(field(path), 'base64').toString();
  return {
    url: field(['clusters', 0, 'cluster', 'server']),
    ca: decoded(['clusters', 0, 'cluster', 'certificate-authority-data']),
    cert: decoded(['users', 0, 'user', 'client-certificate-data']),
    key: decoded(['users', 0, 'user', 'client-key-data']),
  };
};

export const getJson = (server: KubeconfigServer, path: string, accept = 'application/json'): Promise<JsonValue> =>
  new Promise((resolve, reject) => {
    const { ca, cert, key } = server;
    const req = request(`${server.url}${path}`, { ca, cert, key, headers: { accept }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode ?? 0} ${body.slice(0, 200)}`));
        else resolve(parseJsonText(body));
      });
    });
    req.on('error', reject);
    req.end();
  });
