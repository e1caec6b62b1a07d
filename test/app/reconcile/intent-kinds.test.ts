/**
 * The `kreconcile.io/intent-kinds` annotation is tenant-writable: it is read bounded, decoded entry
 * by entry (what does not decode is ignored), and written only within the same bounds.
 */
import { describe, expect, it } from 'vitest';
import {
  INTENT_KINDS_ANNOTATION,
  MAX_INTENT_KINDS,
  MAX_INTENT_KINDS_TEXT,
  intentKindsOf,
  intentKindsText,
} from '../../../app/reconcile/intent-kinds.js';
import type { JsonValue, ObjectMeta } from '../../../core/internal.js';

const annotated = (value: JsonValue): { readonly metadata: ObjectMeta } => ({
  metadata: { name: 'shop', annotations: { [INTENT_KINDS_ANNOTATION]: value } } as unknown as ObjectMeta,
});

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment' };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('reading kreconcile.io/intent-kinds', () => {
  it('names the kinds of a well-formed list, each once, in order', () => {
    expect(intentKindsOf(annotated(JSON.stringify([deployment, configMap, deployment])))).toEqual([
      deployment,
      configMap,
    ]);
  });

  it('reads nothing when the annotation is absent, or the annotations are not a map of strings', () => {
    expect(intentKindsOf({ metadata: { name: 'shop' } })).toEqual([]);
    expect(intentKindsOf({ metadata: { name: 'shop', annotations: 'x' } as unknown as ObjectMeta })).toEqual([]);
    expect(intentKindsOf(annotated([deployment]))).toEqual([]);
    expect(intentKindsOf(annotated(7))).toEqual([]);
  });

  it('reads only names the API server could serve: nothing else reaches discovery or a list URL', () => {
    const kinds = [
      { apiVersion: 'example.com/v1alpha1', kind: 'Widget' },
      { apiVersion: 'a-b.c-d/v2beta3', kind: 'My-Kind' },
      { apiVersion: 'Apps/v1', kind: 'Deployment' },
      { apiVersion: `${'a'.repeat(250)}.com/v1`, kind: 'Deployment' },
      { apiVersion: 'v1', kind: '9Lives' },
    ];
    expect(intentKindsOf(annotated(JSON.stringify(kinds)))).toEqual(kinds.slice(0, 2));
  });

  it('reads nothing from text that is not a JSON list', () => {
    for (const text of ['', 'not json', '{"apiVersion":"v1","kind":"ConfigMap"}', '"[]"', 'null', '[1,2'])
      expect(intentKindsOf(annotated(text))).toEqual([]);
  });

  it('skips the entries that do not decode and keeps the others', () => {
    const text = JSON.stringify([
      null,
      'v1/ConfigMap',
      { apiVersion: 'v1' },
      { apiVersion: '', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 5 },
      { apiVersion: 'v1', kind: 'x'.repeat(64) },
      { apiVersion: '../../api/v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Config/Map' },
      { apiVersion: 'apps/v1/x', kind: 'Deployment' },
      { ...deployment, extra: true },
      configMap,
    ]);
    expect(intentKindsOf(annotated(text))).toEqual([deployment, configMap]);
  });

  it(`reads at most ${MAX_INTENT_KINDS} kinds and ignores a value longer than ${MAX_INTENT_KINDS_TEXT} characters whole`, () => {
    const many = Array.from({ length: MAX_INTENT_KINDS + 5 }, (_, i) => ({ apiVersion: 'v1', kind: `K${i}` }));
    expect(intentKindsOf(annotated(JSON.stringify(many)))).toEqual(many.slice(0, MAX_INTENT_KINDS));
    const long = JSON.stringify([configMap, { apiVersion: 'v1', kind: 'K', pad: 'x'.repeat(MAX_INTENT_KINDS_TEXT) }]);
    expect(intentKindsOf(annotated(long))).toEqual([]);
  });
});

describe('writing kreconcile.io/intent-kinds', () => {
  it('names the kinds recorded before, then the new ones, each once; what it writes reads back', () => {
    const text = intentKindsText([deployment], [configMap, deployment]);
    expect(text).toBe(JSON.stringify([deployment, configMap]));
    expect(intentKindsOf(annotated(text ?? ''))).toEqual([deployment, configMap]);
  });

  it('writes only the kind, whatever else the references carry', () => {
    const ref = { ...configMap, name: 'shop-config', namespace: 'default' };
    expect(intentKindsText([], [ref])).toBe(JSON.stringify([configMap]));
  });

  it('declines what would not fit its bounds (the status records the intent then)', () => {
    const many = Array.from({ length: MAX_INTENT_KINDS + 1 }, (_, i) => ({ apiVersion: 'v1', kind: `K${i}` }));
    expect(intentKindsText(many.slice(0, MAX_INTENT_KINDS), [])).toBeDefined();
    expect(intentKindsText(many.slice(0, MAX_INTENT_KINDS), many.slice(MAX_INTENT_KINDS))).toBeUndefined();
    // 25 kinds of long but valid names: more text than the bound.
    const group = (i: number): string => `${'g'.repeat(60)}.${'h'.repeat(60)}.${'i'.repeat(60)}${i}.example.com`;
    const wide = Array.from({ length: 25 }, (_, i) => ({ apiVersion: `${group(i)}/v1`, kind: 'K'.repeat(63) }));
    expect(intentKindsText([], wide.slice(0, 5))).toBeDefined();
    expect(intentKindsText([], wide)).toBeUndefined();
    expect(intentKindsText([], [{ apiVersion: 'v1', kind: '' }])).toBeUndefined();
  });
});
