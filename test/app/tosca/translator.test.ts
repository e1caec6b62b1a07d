/** The translation step: inline, URL and CSAR sources; never writes spec; errors for InvalidTosca. */
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { parse } from 'yaml';
import { createToscaTranslator, needsTranslation } from '../../../app/tosca/translator.js';
import type { Application, JsonValue } from '../../../core/internal.js';
import { body, LOOPBACK_ALLOWED, serve, status, type Loopback } from './loopback.js';
import { csarOf, WEB_CSAR, WEB_MANIFEST, WEB_TEMPLATE } from './templates.js';

const app = (spec: Record<string, unknown>): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop' },
  spec: spec,
});

let server: Loopback;
beforeAll(async () => {
  server = await serve({
    '/web.yaml': body(WEB_TEMPLATE, 'application/yaml'),
    '/web.csar': body(WEB_CSAR(), 'application/zip'),
    '/bad.yaml': body('a: b: c'),
    '/empty.csar': body(csarOf({ README: 'nothing' })),
    '/down': status(502),
  });
});
afterAll(async () => {
  await server.close();
});

describe('needsTranslation', () => {
  it('only when the manifest is empty and tosca or csar is given', () => {
    expect(needsTranslation(app({ tosca: {} }))).toBe(true);
    expect(needsTranslation(app({ manifest: [], csar: 'http://x' }))).toBe(true);
    expect(
      needsTranslation(
        app({ manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }], tosca: {} }),
      ),
    ).toBe(false);
    expect(needsTranslation(app({ manifest: [] }))).toBe(false);
  });
});

describe('createToscaTranslator', () => {
  const translate = createToscaTranslator(LOOPBACK_ALLOWED);

  it('translates an inline template with spec.toscaInputs, without touching spec', async () => {
    const application = app({ tosca: parse(WEB_TEMPLATE) as JsonValue, toscaInputs: { replicas: 3 } });
    const before = structuredClone(application);
    expect(await translate(application)).toEqual({ _tag: 'Translated', manifest: WEB_MANIFEST });
    expect(application).toEqual(before);
  });

  it('translates a template by URL', async () => {
    expect(await translate(app({ tosca: server.url('/web.yaml'), toscaInputs: { replicas: 3 } }))).toEqual({
      _tag: 'Translated',
      manifest: WEB_MANIFEST,
    });
  });

  it('translates a CSAR by URL', async () => {
    expect(await translate(app({ csar: server.url('/web.csar'), toscaInputs: { replicas: 3 } }))).toEqual({
      _tag: 'Translated',
      manifest: WEB_MANIFEST,
    });
  });

  it('gives the very same manifest for the same inputs while the fetch is cached (the planner caches by identity)', async () => {
    const first = await translate(app({ csar: server.url('/web.csar') }));
    const second = await translate(app({ csar: server.url('/web.csar') }));
    expect(first._tag === 'Translated' && second._tag === 'Translated' && first.manifest === second.manifest).toBe(
      true,
    );
    const other = await translate(app({ csar: server.url('/web.csar'), toscaInputs: { replicas: 9 } }));
    expect(other._tag === 'Translated' && other.manifest !== (first as { manifest: unknown }).manifest).toBe(true);
  });

  it('nothing to do for an Application with a manifest', async () => {
    expect(
      await translate(
        app({ manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }], tosca: 'http://unused' }),
      ),
    ).toEqual({ _tag: 'NotNeeded' });
  });

  it.each([
    [
      'both tosca and csar',
      { tosca: {}, csar: 'http://x' },
      'spec.tosca, spec.csar: give one of them, not both',
      false,
    ],
    [
      'a tosca that is neither mapping nor URL',
      { tosca: 42 },
      'spec.tosca: expected a TOSCA template (a mapping) or the URL of one',
      false,
    ],
    ['a csar that is not a string', { csar: {} }, 'spec.csar: expected the URL of a CSAR archive', false],
  ])('%s', async (_, spec, message, retryable) => {
    expect(await translate(app(spec))).toEqual({ _tag: 'Invalid', message, retryable });
  });

  it('names the URL and the entry in messages', async () => {
    const bad = await translate(app({ tosca: server.url('/bad.yaml') }));
    expect(bad).toEqual({
      _tag: 'Invalid',
      message: `spec.tosca (${server.url('/bad.yaml')}): not a YAML document: line 1, column 4: Nested mappings are not allowed in compact mappings`,
      retryable: false,
    });
    const empty = await translate(app({ csar: server.url('/empty.csar') }));
    expect(empty).toEqual({
      _tag: 'Invalid',
      message: `spec.csar (${server.url('/empty.csar')}): no TOSCA-Metadata/TOSCA.meta in the archive`,
      retryable: false,
    });
    const noInput = await translate(app({ csar: server.url('/web.csar'), toscaInputs: 'x' }));
    expect(noInput._tag === 'Invalid' && noInput.message).toBe(
      `spec.csar (${server.url('/web.csar')}) Definitions/web.yaml: spec.toscaInputs must be a mapping of input names to values`,
    );
  });

  it('a server error is retryable', async () => {
    expect(await translate(app({ csar: server.url('/down') }))).toEqual({
      _tag: 'Invalid',
      message: `spec.csar (${server.url('/down')}): HTTP 502`,
      retryable: true,
    });
  });
});
