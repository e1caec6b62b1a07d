/** JSON helpers and paths: equality, own-property semantics, readable paths and RFC 6901 pointers. */
import { describe, it, expect } from 'vitest';
import {
  escapePointerToken,
  fromPointer,
  getIn,
  getOwn,
  jsonEqual,
  objectFromEntries,
  showPath,
  toPointer,
  unescapePointerToken,
  withKey,
  withoutKey,
  parseJsonText,
  type JsonObject,
  type Resource,
} from '../../core/internal.js';

describe('JSON Pointer (RFC 6901)', () => {
  it('escapes `~` as ~0 and `/` as ~1, `~` first', () => {
    expect(escapePointerToken('app.kubernetes.io/name')).toBe('app.kubernetes.io~1name');
    expect(escapePointerToken('a~b')).toBe('a~0b');
    expect(escapePointerToken('~1')).toBe('~01');
    expect(escapePointerToken('x/y~z')).toBe('x~1y~0z');
  });

  it('unescapes ~1 before ~0 so that "~01" reads back as "~1"', () => {
    expect(unescapePointerToken('~01')).toBe('~1');
    expect(unescapePointerToken('app.kubernetes.io~1name')).toBe('app.kubernetes.io/name');
  });

  it('builds pointers from paths and parses them back', () => {
    const path = ['metadata', 'labels', 'app.kubernetes.io/name'];
    expect(toPointer(path)).toBe('/metadata/labels/app.kubernetes.io~1name');
    expect(fromPointer(toPointer(path))).toEqual(path);
    expect(toPointer(['spec', 'ports', 0, 'port'])).toBe('/spec/ports/0/port');
    expect(fromPointer(toPointer(['', 'a~/b', '~0']))).toEqual(['', 'a~/b', '~0']);
    expect(toPointer([])).toBe('');
    expect(fromPointer('')).toEqual([]);
  });
});

describe('showPath', () => {
  it('writes identifiers with dots, positions in brackets, odd keys quoted', () => {
    expect(showPath(['spec', 'template', 'spec', 'containers', 0, 'image'])).toBe(
      'spec.template.spec.containers[0].image',
    );
    expect(showPath(['metadata', 'labels', 'app.kubernetes.io/name'])).toBe(
      'metadata.labels["app.kubernetes.io/name"]',
    );
    expect(showPath([0, 'spec'], 'spec.observerSchema')).toBe('spec.observerSchema[0].spec');
    expect(showPath(['clusterIP'])).toBe('clusterIP');
  });
});

describe('jsonEqual', () => {
  it('ignores key order, compares lists by position, tells null from absent', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual(null, undefined)).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
  });
});

describe('own-property semantics', () => {
  it('keeps "__proto__" as data and never touches Object.prototype', () => {
    const object = objectFromEntries([
      ['__proto__', { polluted: true }],
      ['a', 1],
    ]);
    expect(Object.keys(object)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(getIn(object, ['__proto__', 'polluted'])).toBe(true);
  });

  it('reads inherited names as absent', () => {
    expect(getIn({ a: {} }, ['a', 'toString'])).toBeUndefined();
    expect(getIn({ a: {} }, ['a', 'constructor'])).toBeUndefined();
  });

  it('a value planted on Object.prototype (prototype pollution elsewhere in the process) is never read as data', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.kreconcilePlanted = 'planted';
    try {
      expect(getIn({ spec: {} }, ['spec', 'kreconcilePlanted'])).toBeUndefined();
      expect(getOwn({}, 'kreconcilePlanted')).toBeUndefined();
    } finally {
      delete prototype.kreconcilePlanted;
    }
  });

  it('getIn walks keys and positions, undefined on any missing step', () => {
    const value = { spec: { ports: [{ port: 80 }] } };
    expect(getIn(value, ['spec', 'ports', 0, 'port'])).toBe(80);
    expect(getIn(value, ['spec', 'ports', 1, 'port'])).toBeUndefined();
    expect(getIn(value, ['spec', 'ports', 'x'])).toBeUndefined();
  });

  it('withKey replaces in place (order kept) or appends; withoutKey removes; inputs untouched', () => {
    const object: JsonObject = Object.freeze({ a: 1, b: 2 });
    expect(Object.entries(withKey(object, 'a', 3))).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    expect(Object.entries(withKey(object, 'c', 3))).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(withoutKey(object, 'a')).toEqual({ b: 2 });
    expect(object).toEqual({ a: 1, b: 2 });
  });

  it('withKey and withoutKey keep a Resource a Resource, and the types refuse what would break it', () => {
    const resource: Resource = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n' } };
    // No cast: the copy's type is the input's (npm run typecheck checks the lines marked below fail to compile).
    const renamed: Resource = withKey(resource, 'metadata', withKey(resource.metadata, 'name', 'b'));
    const moved: Resource = withoutKey(withKey(resource, 'data', { k: 'v' }), 'data');
    expect(renamed.metadata).toEqual({ name: 'b', namespace: 'n' });
    expect(moved).toEqual(resource);
    // @ts-expect-error metadata must stay an ObjectMeta (a name is required)
    withKey(resource, 'metadata', {});
    // @ts-expect-error kind is a string
    withKey(resource, 'kind', 3);
    // @ts-expect-error a Resource cannot lose its kind
    withoutKey(resource, 'kind');
  });

  it('parseJsonText parses JSON text (and throws on anything else, as JSON.parse does)', () => {
    expect(parseJsonText('{"a":[1,null,"x"]}')).toEqual({ a: [1, null, 'x'] });
    expect(() => parseJsonText('{a:1}')).toThrow(SyntaxError);
  });
});
