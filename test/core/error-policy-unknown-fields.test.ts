/**
 * Strict field validation's refusals (kube-apiserver 1.36's words, on create, patch and
 * server-side apply) stall `InvalidSpec` naming the fields, also for a guarded patch, whose other
 * input errors mean "the object moved" and are re-planned.
 */
import { describe, expect, it } from 'vitest';
import { errorPolicy, unknownFieldsOf } from '../../core/status/error-policy.js';
import type { ClusterError } from '../../core/ports/errors.js';

const error = (tag: ClusterError['_tag'], message: string): ClusterError => ({ _tag: tag, code: 400, message });

describe('unknown fields under strict field validation', () => {
  it('names every field of a strict decoding error and of a server-side apply refusal', () => {
    expect(
      unknownFieldsOf(
        error(
          'BadRequest',
          'strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.foo"',
        ),
      ),
    ).toEqual(['spec.replica', 'spec.template.spec.foo']);
    expect(
      unknownFieldsOf(
        error('BadRequest', 'failed to create typed patch object: .spec.replica: field not declared in schema'),
      ),
    ).toEqual(['spec.replica']);
    expect(unknownFieldsOf(error('Conflict', 'unknown field "spec.replica"'))).toEqual([]);
    expect(unknownFieldsOf(error('BadRequest', 'the body is not JSON'))).toEqual([]);
  });

  it('stalls InvalidSpec naming the field, even for a guarded patch', () => {
    const refused = error('BadRequest', 'strict decoding error: unknown field "spec.replica"');
    for (const guardedPatch of [false, true])
      expect(errorPolicy(refused, 1, 0, { guardedPatch })).toEqual({
        _tag: 'Terminal',
        reason: 'InvalidSpec',
        detail:
          'the API server does not know the field spec.replica of this kind (strict field validation): fix or remove it in spec.manifest (kreconcile validate names the closest known field)',
      });
    expect(errorPolicy(error('BadRequest', 'the body is not JSON'), 1, 0, { guardedPatch: true })._tag).toBe('Retry');
  });
});
