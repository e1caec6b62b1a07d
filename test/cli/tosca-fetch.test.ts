/**
 * `kreconcile plan` fetching templates with the operator's own fetcher (app/tosca/fetch.ts): a
 * loopback server stands for the template host, so its address policy, bounds and `file:` roots
 * are the real ones. And the translation is what the plan reads live objects by.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { body, serve, type Loopback } from '../app/tosca/loopback.js';
import { runCli } from './support/run-cli.js';
import { csarOfDirectory } from './support/tosca.js';

const NOW = '2026-03-02T12:00:00Z';
const EXAMPLE = 'examples/tosca/app-csar.yaml';
const LOOPBACK = ['--allow-tosca-fetch', '--tosca-allow-http', '--tosca-allow-host', '127.0.0.1'];

let server: Loopback;
beforeAll(async () => {
  server = await serve({
    '/web.csar': body(csarOfDirectory('examples/tosca/csar'), 'application/zip'),
    '/web.yaml': body(readFileSync('examples/tosca/template.yaml'), 'application/yaml'),
    '/huge.yaml': body(new Uint8Array(5 * 1024 * 1024).fill(0x61), 'application/yaml'),
  });
});
afterAll(async () => {
  await server.close();
});

/** The CSAR example, its URL pointing at the loopback server (a virtual file of the same name). */
const csarApp = (path = '/web.csar'): Record<string, string> => ({
  [EXAMPLE]: readFileSync(EXAMPLE, 'utf8').replace('http://127.0.0.1:8000/web.csar', server.url(path)),
});

const plan = (flags: ReadonlyArray<string>, files: Record<string, string>, file = EXAMPLE) =>
  runCli(['plan', '-f', file, ...flags, '--now', NOW, '-o', 'json'], { files });

const hits = (): number => [...server.hits.values()].reduce((a, b) => a + b, 0);

describe('kreconcile plan with the real fetcher', () => {
  it('fetches the CSAR from an allowed loopback host and plans what the golden example plans', async () => {
    const result = await plan(LOOPBACK, csarApp());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const golden = JSON.parse(readFileSync('test/cli/golden/tosca/app-csar.json', 'utf8')) as PlanDocumentV1;
    const planned = JSON.parse(result.stdout) as PlanDocumentV1;
    expect(planned.applications[0]?.actions).toEqual(golden.applications[0]?.actions);
    expect(planned.applications[0]?.translated).toEqual({
      ...golden.applications[0]?.translated,
      url: server.url('/web.csar'),
    });
  });

  it('refuses the loopback address unless --tosca-allow-host names it, and says so', async () => {
    const before = hits();
    const result = await plan(['--allow-tosca-fetch', '--tosca-allow-http'], csarApp());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: examples\/tosca\/app-csar\.yaml:13:3: document 1 \(Application shop\/web\): spec\.csar \(http:\/\/127\.0\.0\.1:\d+\/web\.csar\): cannot fetch: 127\.0\.0\.1 is a loopback, private, link-local or metadata address: refused \(allow it with --tosca-allow-host\)\n$/,
    );
    expect(hits()).toBe(before);
  });

  it('contacts nobody without --allow-tosca-fetch', async () => {
    const before = hits();
    const result = await plan([], csarApp());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--allow-tosca-fetch');
    expect(hits()).toBe(before);
  });

  it('keeps the operator size bound: a 5 MiB template is refused', async () => {
    const files = {
      'app.yaml': [
        'apiVersion: kreconcile.io/v1alpha1',
        'kind: Application',
        'metadata: { name: web, namespace: shop }',
        `spec: { tosca: "${server.url('/huge.yaml')}" }`,
      ].join('\n'),
    };
    const result = await plan(LOOPBACK, files, 'app.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('larger than 4194304 bytes');
  });

  it('reports a server error with its status', async () => {
    const result = await plan(LOOPBACK, csarApp('/gone.csar'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/spec\.csar \(http:\/\/127\.0\.0\.1:\d+\/gone\.csar\): HTTP 404\n$/);
  });
});

describe('kreconcile plan with file: templates', () => {
  const appFor = (url: string): Record<string, string> => ({
    'app.yaml': [
      'apiVersion: kreconcile.io/v1alpha1',
      'kind: Application',
      'metadata: { name: web, namespace: shop }',
      `spec: { tosca: "${url}", toscaInputs: { replicas: 3 } }`,
    ].join('\n'),
  });
  const template = pathToFileURL(resolve('examples/tosca/template.yaml')).href;

  it('reads a template below --tosca-file-root, as the URL example plans it', async () => {
    const result = await plan(['--tosca-file-root', 'examples/tosca'], appFor(template), 'app.yaml');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const golden = JSON.parse(readFileSync('test/cli/golden/tosca/app-url.json', 'utf8')) as PlanDocumentV1;
    expect((JSON.parse(result.stdout) as PlanDocumentV1).applications[0]?.actions).toEqual(
      golden.applications[0]?.actions,
    );
  });

  it('refuses file: without --tosca-file-root, and outside it', async () => {
    const none = await plan([], appFor(template), 'app.yaml');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('file: URLs are read only below a directory named with --tosca-file-root DIR');
    const outside = await plan(['--tosca-file-root', 'examples/webapp'], appFor(template), 'app.yaml');
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('outside the directories allowed for file: URLs');
  });

  it('does not follow a symbolic link out of the root', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kreconcile-tosca-'));
    try {
      symlinkSync(resolve('examples/tosca/template.yaml'), join(root, 'web.yaml'));
      writeFileSync(join(root, 'own.yaml'), readFileSync('examples/tosca/template.yaml'));
      const escaped = await plan(
        ['--tosca-file-root', root],
        appFor(pathToFileURL(join(root, 'web.yaml')).href),
        'app.yaml',
      );
      expect(escaped.code).toBe(1);
      expect(escaped.stderr).toContain('outside the directories allowed');
      const own = await plan(
        ['--tosca-file-root', root],
        appFor(pathToFileURL(join(root, 'own.yaml')).href),
        'app.yaml',
      );
      expect(own.code).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the translation is what the plan reads the cluster by', () => {
  it('a foreign ConfigMap named by the template is a conflict, not a creation', async () => {
    const snapshot = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: { name: web-config, namespace: shop, resourceVersion: "7", uid: 0a0b }',
      'data: { GREETING: hand-made }',
    ].join('\n');
    const result = await runCli(
      ['plan', '-f', 'examples/tosca/app-inline.yaml', '--snapshot', 'live.yaml', '--now', NOW, '-o', 'json'],
      { files: { 'live.yaml': snapshot } },
    );
    expect(result.stderr).toBe('');
    const [application] = (JSON.parse(result.stdout) as PlanDocumentV1).applications;
    expect(application?.actions.filter((a) => a.type === 'conflict').map((a) => a.resource.name)).toEqual([
      'web-config',
    ]);
    expect(application?.actions.some((a) => a.type === 'create' && a.resource.kind === 'ConfigMap')).toBe(false);
  });
});
