/**
 * JSON input is read by the JSON parser (issue 26: the YAML parser made a JSON file of 4 000
 * ConfigMaps cost 50× its plan), under the same bounds and with the same one-line errors as YAML:
 * what the JSON parser cannot vouch for is read again by the YAML path, which says where.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../app/cli/input/limits.js';
import { readJsonText } from '../../app/cli/input/json-text.js';
import { linesOf, runCli } from './support/run-cli.js';

const NOW = ['--now', '2026-11-01T10:00:00Z'];

const application = {
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    manifest: [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { a: '1', __proto__x: 'y' } },
    ],
  },
};

const YAML_FORM = `apiVersion: kreconcile.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: shop
spec:
  manifest:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: web-config
      data:
        a: "1"
        __proto__x: "y"
`;

describe('JSON input', () => {
  it('is read by the JSON parser: the value, with the keys written', () => {
    const text = JSON.stringify({ a: { b: [1, 'x', null, true] }, __proto__: 1 }).replace('"a"', '"__proto__":2,"a"');
    expect(readJsonText(text, DEFAULT_LIMITS)).toEqual({ value: JSON.parse(text) as unknown });
    expect(Object.keys(readJsonText(text, DEFAULT_LIMITS)?.value as object)).toEqual(['__proto__', 'a']);
  });

  it('is left to the careful reader when a key is written twice, nesting or size is over the limit, or a number overflows', () => {
    expect(readJsonText('{"a": 1, "b": {"c": 2, "c": 3}}', DEFAULT_LIMITS)).toBeUndefined();
    expect(readJsonText('{"a": "x:y", "b": {"c": ":"}}', DEFAULT_LIMITS)).toBeDefined(); // colons in strings are no keys
    expect(readJsonText(`${'['.repeat(5)}${']'.repeat(5)}`, { ...DEFAULT_LIMITS, maxDepth: 4 })).toBeUndefined();
    expect(readJsonText('[1, 2, 3]', { ...DEFAULT_LIMITS, maxNodes: 3 })).toBeUndefined();
    expect(readJsonText('[1e400]', DEFAULT_LIMITS)).toBeUndefined();
    expect(readJsonText('[1] [2]', DEFAULT_LIMITS)).toBeUndefined();
  });

  it('plans as the same object written in YAML', async () => {
    const fromJson = await runCli(['plan', '-f', 'app.json', '-o', 'json', ...NOW], {
      files: { 'app.json': JSON.stringify(application, null, 2) },
    });
    const fromYaml = await runCli(['plan', '-f', 'app.yaml', '-o', 'json', ...NOW], {
      files: { 'app.yaml': YAML_FORM },
    });
    expect(fromJson.stderr).toBe('');
    expect(fromJson.stdout.replaceAll('app.json', 'app.yaml')).toBe(fromYaml.stdout);
  });

  it('a duplicate key is one line naming where, as in YAML', async () => {
    const text = '{\n  "apiVersion": "kreconcile.io/v1alpha1",\n  "kind": "Application",\n  "kind": "Application"\n}\n';
    const result = await runCli(['plan', '-f', 'app.json', ...NOW], { files: { 'app.json': text } });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      'error: app.json:4:3: document 1: malformed YAML: duplicate key kind: a key may appear once per map, remove one',
    ]);
  });

  it('an invalid field of a JSON file is located by line and column', async () => {
    const broken = { ...application, spec: { manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }] } };
    const result = await runCli(['plan', '-f', 'app.json', ...NOW], {
      files: { 'app.json': JSON.stringify(broken, null, 2) },
    });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: app\.json:1[0-9]:\d+: document 1/);
  });
});
