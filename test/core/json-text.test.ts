/** A JSON value as text (core/json/text.ts): objects a tenant writes where a string belongs stay told apart. */
import { describe, it, expect } from 'vitest';
import { jsonText } from '../../core/json/text.js';
import { writtenKey } from '../../core/manifest/identity.js';

describe('jsonText', () => {
  it('writes a string as it is and any other value as its JSON', () => {
    expect(jsonText('apps/v1')).toBe('apps/v1');
    expect(jsonText(3)).toBe('3');
    expect(jsonText(null)).toBe('null');
    expect(jsonText(undefined)).toBe('undefined');
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
    expect(jsonText([1, 2])).toBe('[1,2]');
  });

  it('keeps two objects with different object apiVersions apart (String wrote both as [object Object])', () => {
    const a = { apiVersion: { group: 'a' }, kind: 'ConfigMap', metadata: { name: 'x' } };
    const b = { apiVersion: { group: 'b' }, kind: 'ConfigMap', metadata: { name: 'x' } };
    expect(writtenKey(a)).not.toBe(writtenKey(b));
    expect(writtenKey(a)).not.toContain('[object Object]');
  });
});
