/**
 * Helpers of the HTTP endpoint tests: a served memory cluster, authorised raw requests, watch streams read line by
 * line.
 */
import { parse } from 'yaml';
import {
  createMemoryCluster,
  type MemoryCluster,
  type MemoryClusterOptions,
} from '../../../../adapters/memory/index.js';
import { serveMemoryCluster, type ServedCluster, type ServeOptions } from '../../../../adapters/memory/http/index.js';

export type Endpoint = ServedCluster & {
  readonly memory: MemoryCluster;
  readonly token: string;
  request(
    path: string,
    init?: { method?: string; body?: unknown; contentType?: string; token?: string | null },
  ): Promise<{ status: number; headers: Headers; json: any }>;
};

const tokenOf = (kubeconfig: string): string => {
  const config = parse(kubeconfig) as { users: Array<{ user: { token: string } }> };
  const token = config.users[0]?.user.token;
  if (token === undefined) throw new Error('the kubeconfig has no token');
  return token;
};

export const endpoint = async (options: MemoryClusterOptions = {}, serve: ServeOptions = {}): Promise<Endpoint> => {
  const memory = createMemoryCluster(options);
  const served = await serveMemoryCluster(memory, serve);
  const token = tokenOf(served.kubeconfig);
  return {
    ...served,
    memory,
    token,
    request: async (path, init = {}) => {
      const headers: Record<string, string> = {};
      if (init.token !== null) headers.authorization = `Bearer ${init.token ?? token}`;
      if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
      const response = await fetch(`${served.url}${path}`, {
        method: init.method ?? 'GET',
        headers,
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: response.status, headers: response.headers, json };
    },
  };
};

/**
 * A watch request read line by line: `lines` fills as events arrive; `ended` settles when the server ends the stream.
 */
export const watchLines = async (
  target: Endpoint,
  path: string,
  accept?: string,
): Promise<{ lines: any[]; ended: Promise<void>; abort(): void; status: number }> => {
  const controller = new AbortController();
  const response = await fetch(`${target.url}${path}`, {
    headers: { authorization: `Bearer ${target.token}`, ...(accept === undefined ? {} : { accept }) },
    signal: controller.signal,
  });
  const lines: any[] = [];
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffered = '';
    for (;;) {
      const chunk = await reader?.read().catch(() => ({ done: true, value: undefined }));
      if (chunk === undefined || chunk.done) return;
      buffered += decoder.decode(chunk.value, { stream: true });
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part));
    }
  })();
  return { lines, ended, abort: () => controller.abort(), status: response.status };
};
