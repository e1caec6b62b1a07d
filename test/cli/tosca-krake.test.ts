/**
 * Krake's own TOSCA/CSAR test cases (krake/tests/controller/kubernetes/test_tosca.py), rewritten
 * as Applications (test/cli/golden/tosca-krake) and run through the CLI: the valid ones plan
 * Krake's nginx-demo Deployment from an inline template, a URL, a file, a CSAR by URL and a CSAR
 * by file; the invalid ones are refused, every problem on its own line (golden).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ActionV1, PlanDocumentV1 } from '../../app/cli/render/plan-document.js';
import { body, serve, type Loopback } from '../app/tosca/loopback.js';
import { expectGolden } from './support/golden.js';
import { runCli } from './support/run-cli.js';

const DIR = 'test/cli/golden/tosca-krake';
const NOW = '2026-03-02T12:00:00Z';
const TEMPLATE = readFileSync(`${DIR}/template.yaml`, 'utf8');
const FETCH = ['--allow-tosca-fetch', '--tosca-allow-http', '--tosca-allow-host', '127.0.0.1'];

/** Krake's CSARs: the template as tosca.yaml with a TOSCA.meta naming it, and the same without the meta file. */
const CSAR = zipSync({
  'tosca.yaml': strToU8(TEMPLATE),
  'TOSCA-Metadata/TOSCA.meta': readFileSync(`${DIR}/TOSCA.meta`),
});
const CSAR_WITHOUT_META = zipSync({ 'tosca.yaml': strToU8(TEMPLATE) });

/** The Deployment Krake's tests expect every valid case to translate to. */
const KRAKE_DEPLOYMENT = (parse(TEMPLATE) as { topology_template: { node_templates: Record<string, unknown> } })
  .topology_template.node_templates['nginx-demo'] as { properties: { spec: Record<string, unknown> } };

let server: Loopback;
let archives: string;
beforeAll(async () => {
  server = await serve({
    '/tosca.yaml': body(TEMPLATE, 'application/yaml'),
    '/example.csar': body(CSAR, 'application/zip'),
    '/no-meta.csar': body(CSAR_WITHOUT_META, 'application/zip'),
  });
  archives = mkdtempSync(join(tmpdir(), 'kreconcile-krake-'));
  writeFileSync(join(archives, 'archive.csar'), CSAR);
});
afterAll(async () => {
  await server.close();
  rmSync(archives, { recursive: true, force: true });
});

const placeholders = (): ReadonlyArray<readonly [string, string]> => [
  ['${SERVER}', server.url('').replace(/\/$/, '')],
  ['${ROOT}', pathToFileURL(resolve(DIR)).href],
  ['${ARCHIVES}', pathToFileURL(archives).href],
];

/** A fixture with its placeholders filled in (a virtual file of the same name). */
const filled = (name: string): Record<string, string> => ({
  [`${DIR}/${name}`]: placeholders().reduce(
    (text, [placeholder, value]) => text.split(placeholder).join(value),
    readFileSync(`${DIR}/${name}`, 'utf8'),
  ),
});

/** Output with the run's addresses put back as placeholders, so the golden file is stable. */
const stable = (text: string): string =>
  placeholders().reduce((out, [placeholder, value]) => out.split(value).join(placeholder), text);

const run = (command: 'plan' | 'validate', name: string, extra: ReadonlyArray<string> = []) =>
  runCli(
    [command, '-f', `${DIR}/${name}`, ...FETCH, '--tosca-file-root', DIR, '--tosca-file-root', archives, ...extra],
    { files: filled(name) },
  );

describe("Krake's TOSCA/CSAR cases through kreconcile", () => {
  it("plans every valid case (golden), each translated to exactly Krake's nginx-demo Deployment", async () => {
    const text = await run('plan', 'valid.yaml', ['--now', NOW]);
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expectGolden(`${DIR}/valid.txt`, stable(text.stdout));
    const json = await run('plan', 'valid.yaml', ['--now', NOW, '-o', 'json']);
    const document = JSON.parse(json.stdout) as PlanDocumentV1;
    expect(document.applications.map((a) => a.application.name)).toEqual([
      'from-dict',
      'from-url',
      'from-path',
      'csar-from-url',
      'csar-from-path',
      'no-data-types',
    ]);
    for (const application of document.applications) {
      expect(application.translated?.resources).toEqual([
        { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'secondary', name: 'nginx-demo' },
      ]);
      const created = application.actions.filter(
        (a): a is Extract<ActionV1, { type: 'create' }> => a.type === 'create',
      );
      expect(created).toHaveLength(1);
      // What Krake compares (`translate_to_manifests() == [deployment_manifest]`), plus kreconcile's ownership marks.
      expect(created[0]?.body).toMatchObject(KRAKE_DEPLOYMENT.properties.spec);
      expect(created[0]?.body.spec).toEqual(KRAKE_DEPLOYMENT.properties.spec.spec);
    }
  });

  it('validates every valid case', async () => {
    const result = await run('validate', 'valid.yaml');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim().split('\n')).toHaveLength(6);
  });

  it.each(['validate', 'plan'] as const)(
    '%s refuses every invalid case, one line each at its path (golden)',
    async (command) => {
      const result = await run(command, 'invalid.yaml', command === 'plan' ? ['--now', NOW] : []);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expectGolden(`${DIR}/invalid.txt`, stable(result.stderr));
      const subjects = result.stderr.match(/\(Application secondary\/[a-z-]+\)/g) ?? [];
      expect(new Set(subjects)).toEqual(
        new Set(
          [
            'no-version',
            'no-spec',
            'no-topology-template',
            'no-node-templates',
            'empty-spec',
            'unsupported-function',
            'csar-without-meta',
          ].map((name) => `(Application secondary/${name})`),
        ),
      );
    },
  );
});
