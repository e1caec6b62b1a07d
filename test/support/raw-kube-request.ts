/**
 * Raw requests to an API server named by a kubeconfig (the real kube-apiserver's client
 * certificates, or the memory server's bearer token over HTTP), answering the exact HTTP status
 * and the decoded body: what the differential tests compare, where the typed adapter would fold
 * 200 and 201 together or drop managedFields.
 */
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent, type RequestOptions } from 'node:https';
import * as E from 'fp-ts/lib/Either.js';
import { loadKubeConfig, type KubeConfigSource } from '../../adapters/kubernetes/kube-config.js';
import { parseJsonText, type JsonValue } from '../../core/json/json.js';

export type RawRequest = {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, e.g. `/api/v1/namespaces/ns/configmaps/a?fieldManager=x`. */
  readonly path: string;
  readonly body?: JsonValue;
  readonly contentType?: string;
};

export type RawAnswer = { readonly status: number; readonly body: JsonValue };

export type RawKubeClient = {
  send(request: RawRequest): Promise<RawAnswer>;
  close(): void;
};

const TIMEOUT_MS = 30_000;

/** A client for the current context of `source`; connections are kept alive until `close`. */
export const rawKubeClient = async (source: KubeConfigSource): Promise<RawKubeClient> => {
  const loaded = loadKubeConfig(source);
  if (E.isLeft(loaded)) throw new Error(loaded.left);
  const server = loaded.right.getCurrentCluster()?.server ?? '';
  const secure = server.startsWith('https:');
  const options: RequestOptions = { headers: {} };
  await loaded.right.applyToHTTPSOptions(options);
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = (raw: RawRequest): Promise<RawAnswer> =>
    new Promise((resolve, reject) => {
      const body = raw.body === undefined ? undefined : JSON.stringify(raw.body);
      const headers = {
        ...options.headers,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': raw.contentType ?? 'application/json' }),
      };
      const request = secure ? httpsRequest : httpRequest;
      const req = request(
        `${server}${raw.path}`,
        { ...options, method: raw.method, headers, agent, timeout: TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: JsonValue;
            try {
              parsed = text === '' ? null : parseJsonText(text);
            } catch {
              parsed = text;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${raw.method} ${raw.path}: no answer in ${TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
};
