/** The embedded runtime's primary mapping: decoded at the boundary, status written beside the author's fields. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { kreconcileStatusPatch, primaryOf } from '../../../app/runtime/primary.js';
import type { Resource } from '../../../core/internal.js';

const greeting = (spec: Record<string, unknown>, status?: Record<string, unknown>): Resource =>
  ({
    apiVersion: 'example.kreconcile.io/v1',
    kind: 'Greeting',
    metadata: { name: 'g', namespace: 'ns', uid: 'u', generation: 2 },
    spec,
    ...(status === undefined ? {} : { status }),
  }) as Resource;

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };

describe('primaryOf', () => {
  const primary = primaryOf({
    apiVersion: 'example.kreconcile.io/v1',
    kind: 'Greeting',
    desired: (g) => {
      const spec = g.spec as { mode: string };
      if (spec.mode === 'throw') throw new Error('no message');
      if (spec.mode === 'garbage') return 42 as never;
      if (spec.mode === 'bad-child') return { manifest: [{ kind: 'ConfigMap' }] };
      return { manifest: [configMap] };
    },
  });

  it("maps a primary to an Application-shaped value naming the primary, with kreconcile's status fields only", () => {
    const decoded = primary.decode(greeting({ mode: 'ok' }, { observedGeneration: 1, greeted: 3 }));
    expect(E.isRight(decoded) && decoded.right).toMatchObject({
      apiVersion: 'example.kreconcile.io/v1',
      kind: 'Greeting',
      metadata: { name: 'g', namespace: 'ns', uid: 'u', generation: 2 },
      spec: { manifest: [configMap] },
      status: { observedGeneration: 1 },
    });
    expect(E.isRight(decoded) && decoded.right.status).toEqual({ observedGeneration: 1 });
  });

  it('turns a throwing desired, a non-object and an invalid child into issues, never a throw', () => {
    const messages = (mode: string) => {
      const decoded = primary.decode(greeting({ mode }));
      return E.isLeft(decoded) ? decoded.left.map((issue) => `${issue.path}: ${issue.message}`).join('; ') : 'decoded';
    };
    expect(messages('throw')).toBe('spec: desired(Greeting) threw: no message');
    expect(messages('garbage')).toContain('must return { manifest');
    expect(messages('bad-child')).toContain('spec.manifest[0]');
  });
});

describe('kreconcileStatusPatch', () => {
  it('writes the whole status only when there is none', () => {
    expect(kreconcileStatusPatch(undefined, { observedGeneration: 1 })).toEqual([
      { op: 'add', path: '/status', value: { observedGeneration: 1 } },
    ]);
  });
  it("adds kreconcile's fields one by one, removes those it dropped, never touches the author's", () => {
    expect(
      kreconcileStatusPatch({ greeted: 3, lastAppliedManifest: [] }, { observedGeneration: 2, conditions: [] }),
    ).toEqual([
      { op: 'add', path: '/status/observedGeneration', value: 2 },
      { op: 'add', path: '/status/conditions', value: [] },
      { op: 'remove', path: '/status/lastAppliedManifest' },
    ]);
  });
});
