/**
 * Depth and size are enforced before big structures are built: nesting bombs in text are refused
 * by a scan that stops at the first excess (never reading on), already-parsed JSON is bounded
 * without recursion, and fetched templates are translated in a worker with a heap and a deadline.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateIsolated } from '../../../app/tosca/isolated.js';
import { createToscaTranslator } from '../../../app/tosca/translator.js';
import { parseYamlDocument } from '../../../app/tosca/yaml.js';
import { checkText, lineColumnOf } from '../../../app/yaml/nesting.js';
import { DEFAULT_JSON_BOUNDS, withinBounds, type Application, type JsonValue } from '../../../core/internal.js';
import { body, LOOPBACK_ALLOWED, serve, type Loopback } from './loopback.js';
import { WEB_CSAR, WEB_MANIFEST, WEB_TEMPLATE } from './templates.js';

const FOUR_MB = 4 * 1024 * 1024;
const LIST_BOMB = '['.repeat(FOUR_MB);
const MAP_BOMB = '{"a":'.repeat(Math.floor(FOUR_MB / 5));
const DASH_BOMB = `${'- '.repeat(FOUR_MB / 2 - 1)}x`;
const limits = { maxBytes: 32 * 1024 * 1024, maxDepth: 200 };

describe('checkText', () => {
  it.each([
    ['[[[[…', LIST_BOMB],
    ['{"a":{"a":…', MAP_BOMB],
    ['- - - …', DASH_BOMB],
  ])('refuses a 4 MB %s bomb where it first goes over, without reading on', (_, text) => {
    const result = checkText(text, limits);
    expect(E.isLeft(result) && result.left.message).toBe(
      'nested deeper than 200 levels: Kubernetes objects nest far less, check the text',
    );
    // Stopped within the first 201 levels: the rest of the 4 MB was never looked at.
    expect(E.isLeft(result) && result.left.offset).toBeLessThan(201 * 5);
  });

  it('refuses block-indented nesting too', () => {
    const text = `${Array.from({ length: 300 }, (_, level) => `${' '.repeat(level)}a:`).join('\n')} x\n`;
    expect(E.isLeft(checkText(text, limits))).toBe(true);
    expect(lineColumnOf(text, (checkText(text, limits) as E.Left<{ offset: number }>).left.offset).line).toBe(202);
  });

  it('counts nothing inside strings, comments and block scalars', () => {
    const text = `a: "${'['.repeat(1_000)}"\nb: '${'{'.repeat(1_000)}'\n# ${'['.repeat(1_000)}\nc: |\n  ${'['.repeat(1_000)}\nd: [1, [2, "]"], {e: f}]\n`;
    expect(checkText(text, limits)).toEqual(E.right(text));
  });

  it('accepts nesting up to the limit and refuses one level more', () => {
    const nested = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
    expect(E.isRight(checkText(nested(200), limits))).toBe(true);
    expect(E.isLeft(checkText(nested(201), limits))).toBe(true);
  });

  it('refuses a text larger than maxBytes before scanning (counting UTF-8 bytes)', () => {
    expect(checkText('é'.repeat(600), { maxBytes: 1_000, maxDepth: 10 })).toEqual(
      E.left({ offset: 0, message: 'larger than 1000 bytes' }),
    );
    expect(E.isRight(checkText('é'.repeat(500), { maxBytes: 1_000, maxDepth: 10 }))).toBe(true);
  });
});

describe('parseYamlDocument (TOSCA templates)', () => {
  it('refuses the 4 MB bombs with a position and a clear message', () => {
    expect(parseYamlDocument(LIST_BOMB)).toEqual(
      E.left('line 1, column 201: nested deeper than 200 levels: Kubernetes objects nest far less, check the text'),
    );
    expect(parseYamlDocument(MAP_BOMB)).toEqual(
      E.left('line 1, column 1001: nested deeper than 200 levels: Kubernetes objects nest far less, check the text'),
    );
  });

  it('refuses a template larger than 4 MiB', () => {
    expect(parseYamlDocument(`# ${'x'.repeat(FOUR_MB)}`)).toEqual(E.left('line 1, column 1: larger than 4.0 MiB'));
  });
});

describe('withinBounds (JSON already parsed: Applications from the API server)', () => {
  const deep = (levels: number): JsonValue => {
    let value: JsonValue = 1;
    for (let level = 0; level < levels; level++) value = { a: value };
    return value;
  };

  it('refuses a value nested 100 000 deep without overflowing the stack, naming the path', () => {
    const result = withinBounds(deep(100_000), DEFAULT_JSON_BOUNDS);
    expect(result).toEqual(
      E.left({
        path: ['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'],
        message: 'nested deeper than 200 levels: Kubernetes objects nest far less',
      }),
    );
  });

  it('accepts 200 levels, refuses 201', () => {
    expect(E.isRight(withinBounds(deep(200), DEFAULT_JSON_BOUNDS))).toBe(true);
    expect(E.isLeft(withinBounds(deep(201), DEFAULT_JSON_BOUNDS))).toBe(true);
  });

  it('refuses more values than maxNodes, and returns the very value when within bounds', () => {
    const wide = { items: Array.from({ length: 1_000 }, (_, i) => i) };
    expect(withinBounds(wide, { maxDepth: 10, maxNodes: 500 })).toEqual(
      E.left({ path: [], message: 'more than 500 values: too large to handle' }),
    );
    const within = withinBounds(wide, { maxDepth: 10, maxNodes: 5_000 });
    expect(E.isRight(within) && within.right).toBe(wide);
  });
});

describe('the translator', () => {
  let server: Loopback;
  beforeAll(async () => {
    server = await serve({
      '/bomb.yaml': body(LIST_BOMB, 'application/yaml'),
      '/map-bomb.json': body(MAP_BOMB, 'application/json'),
      '/web.yaml': body(WEB_TEMPLATE, 'application/yaml'),
      '/web.csar': body(WEB_CSAR(), 'application/zip'),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const app = (spec: Record<string, unknown>): Application => ({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'web', namespace: 'shop' },
    spec: spec,
  });

  it.each([
    ['/bomb.yaml', 'tosca', 201],
    ['/map-bomb.json', 'tosca', 1001],
  ])('refuses a fetched 4 MB bomb (%s) in its worker, with a clear message', async (path, field, column) => {
    const result = await createToscaTranslator(LOOPBACK_ALLOWED)(app({ [field]: server.url(path) }));
    expect(result).toEqual({
      _tag: 'Invalid',
      retryable: false,
      message: `spec.tosca (${server.url(path)}): not a YAML document: line 1, column ${column}: nested deeper than 200 levels: Kubernetes objects nest far less, check the text`,
    });
  });

  it('translates fetched templates and CSARs in the worker as on the calling thread', async () => {
    const isolated = createToscaTranslator(LOOPBACK_ALLOWED);
    const inPlace = createToscaTranslator({ ...LOOPBACK_ALLOWED, isolation: false });
    for (const [field, path] of [
      ['tosca', '/web.yaml'],
      ['csar', '/web.csar'],
    ] as const) {
      const spec = { [field]: server.url(path), toscaInputs: { replicas: 3 } };
      expect(await isolated(app(spec))).toEqual({ _tag: 'Translated', manifest: WEB_MANIFEST });
      expect(await isolated(app(spec))).toEqual(await inPlace(app(spec)));
    }
  });

  it('terminates a translation that takes longer than its deadline', async () => {
    const result = await createToscaTranslator({ ...LOOPBACK_ALLOWED, isolation: { timeoutMs: 1 } })(
      app({ tosca: server.url('/web.yaml') }),
    );
    expect(result).toEqual({
      _tag: 'Invalid',
      retryable: false,
      message: `spec.tosca (${server.url('/web.yaml')}): translation exceeds its bound of 1 ms (timeoutMs): simplify the template`,
    });
  });

  it('terminates a translation that needs more heap than the worker has; the same limit translates a small template', async () => {
    const job = (text: string) => ({
      kind: 'tosca' as const,
      body: Buffer.from(text),
      inputs: undefined,
      root: 'spec.tosca (x)',
      maxBytes: FOUR_MB,
    });
    // 48 MiB: a worker's own start (its modules, the YAML parser) needs some 16 MiB on a loaded machine.
    const limits = { timeoutMs: 60_000, maxHeapMb: 48 };
    expect(await translateIsolated(job(WEB_TEMPLATE), limits)).toMatchObject({ _tag: 'Translated' });
    // Flat (passes the depth scan, 3 MB: under maxBytes) but some 1 000 000 values once parsed: far over 48 MiB.
    expect(await translateIsolated(job(`a:\n${'- {a: 1, b: 2}\n'.repeat(200_000)}`), limits)).toEqual({
      _tag: 'Invalid',
      retryable: false,
      message: 'spec.tosca (x): translation exceeds its bound of 48 MiB of memory (maxHeapMb): simplify the template',
    });
  }, 60_000);

  it('refuses an inline template nested too deep, naming the path', async () => {
    let template: JsonValue = 'x';
    for (let level = 0; level < 300; level++) template = { t: template };
    const result = await createToscaTranslator()(app({ tosca: template }));
    expect(result).toEqual({
      _tag: 'Invalid',
      retryable: false,
      message: 'spec.tosca.t.t.t.t.t.t.t.t: nested deeper than 200 levels: Kubernetes objects nest far less',
    });
  });
});
