/** How the kit's reports name an answer (`get v1 Secret ns/a → NotFound`): what the controller saw on the wire. */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { outcome } from '../../../app/testing/request-scheduler.js';

describe('outcome', () => {
  it('names a read that found nothing NotFound, as the 404 the controller got, not ok', () => {
    expect(outcome(E.right(O.none))).toBe('NotFound');
    expect(outcome(E.right(O.some({ kind: 'Secret' })))).toBe('ok');
  });

  it('names an error by its tag and anything else answered ok', () => {
    expect(outcome(E.left({ _tag: 'Conflict', message: 'the object has been modified' }))).toBe('Conflict');
    expect(outcome(E.right({ kind: 'ConfigMap' }))).toBe('ok');
    expect(outcome(E.right(undefined))).toBe('ok');
  });
});
