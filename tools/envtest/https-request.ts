/**
 * A minimal HTTPS client for the control plane's own probes (readyz, namespaces), using the
 * admin client certificate; tools do not import @kubernetes/client-node (only the adapter may).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

export type TlsIdentity = { readonly ca: string; readonly cert: string; readonly key: string };

export type HttpResult = { readonly status: number; readonly body: string };

/** Loads the PEM files once. */
export const loadIdentity = (paths: { caCert: string; adminCert: string; adminKey: string }): TlsIdentity => ({
  ca: readFileSync(paths.caCert, 'utf8'),
  cert: readFileSync(paths.adminCert, 'utf8'),
  key: readFileSync(paths.adminKey, 'utf8'),
});

/** GET `url`; network failures resolve as status 0 so pollers can simply retry. */
export const httpsGet = (url: string, identity: TlsIdentity, timeoutMs = 5_000): Promise<HttpResult> =>
  new Promise((resolve) => {
    const req = request(url, { method: 'GET', ...identity, timeout: timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve({ status: 0, body: String(error) }));
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.end();
  });
