/**
 * `kreconcile serve` against a web page in the user's browser and a shared directory (issue 37):
 * a foreign Host (DNS rebinding) or any foreign Origin is refused with 403; the kubeconfig is
 * never written through a symbolic link and is always mode 0600, even over an existing 0644 file.
 */
import { request } from 'node:http';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCluster } from '../../adapters/memory/index.js';
import { serveMemoryCluster, type ServedCluster } from '../../adapters/memory/http/index.js';
import { writeKubeconfig } from '../../app/cli/commands/serve.js';

const get = (url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

describe('serve refuses browsers', () => {
  let served: ServedCluster;
  let port: string;
  beforeAll(async () => {
    served = await serveMemoryCluster(createMemoryCluster(), { auth: 'none' });
    port = new URL(served.url).port;
  });
  afterAll(() => served.close());

  it.each([
    [{ host: `127.0.0.1:${'PORT'}` }, 200],
    [{ host: `localhost:${'PORT'}` }, 200],
    [{ host: 'attacker.example:PORT' }, 403],
    [{ host: `127.0.0.1:PORT`, origin: 'https://attacker.example' }, 403],
    [{ host: `127.0.0.1:PORT`, origin: 'null' }, 403],
    [{ host: `127.0.0.1:PORT`, origin: 'http://127.0.0.1:PORT' }, 200],
    [{ host: `127.0.0.1:PORT`, 'sec-fetch-site': 'cross-site' }, 403],
  ])('%j answers %i', async (headers, status) => {
    const withPort = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('PORT', port)]));
    const answer = await get(`${served.url}/api/v1/namespaces`, withPort);
    expect(answer.status).toBe(status);
    if (status === 403)
      expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
  });
});

describe('serve --write-kubeconfig', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kr-serve-kc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a symbolic link and leaves its target alone', async () => {
    const target = join(dir, 'precious');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'kubeconfig-link');
    symlinkSync(target, link);
    const written = await writeKubeconfig(link, 'apiVersion: v1\n');
    expect(written).toEqual(
      E.left(`--write-kubeconfig ${link}: is a symbolic link, which is never followed: name a regular file`),
    );
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('writes mode 0600, also over an existing 0644 file', async () => {
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, 'old', { mode: 0o644 });
    expect(await writeKubeconfig(path, 'apiVersion: v1\n')).toEqual(E.right(undefined));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('apiVersion: v1\n');
  });
});
