/**
 * API error text echoing an object (issue 19): the kube-apiserver 1.36 422 on a patch that makes a
 * Secret undecodable quotes the whole patched object. The adapter cuts echoed objects out of every
 * error; the reconcile also replaces every value of every Secret the plan touches.
 */
import { describe, expect, it } from 'vitest';
import { statusError } from '../../adapters/kubernetes/api-errors.js';
import { base64Of, redactClusterError, redactEcho, secretTexts, type Resource } from '../../core/internal.js';
import { clusterError } from '../../core/ports/errors.js';

const PASSWORD = 'pw-canary-3f9d';
const OTHER = 'other-canary-81c4';
const LAST_APPLIED = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', stringData: { password: PASSWORD } });

const secret: Resource = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'db',
    namespace: 'team-a',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED },
  },
  data: { password: base64Of(PASSWORD), other: base64Of(OTHER) },
};

/** The patched object as the server quotes it: Go's %q of its JSON (one level of escaping). */
const patchedJson = JSON.stringify({ ...secret, data: { ...(secret.data as object), bad: '!!!' } });
const ECHO = `Secret "db" is invalid: patch: Invalid value: ${JSON.stringify(patchedJson)}: illegal base64 data at input byte 0`;

const LEAKS = [PASSWORD, OTHER, base64Of(PASSWORD), base64Of(OTHER), 'last-applied-configuration'];
const expectNoLeak = (text: string): void => {
  for (const leak of LEAKS) expect(text, `holds ${leak}`).not.toContain(leak);
};

describe('API errors that echo a Secret', () => {
  it('the adapter cuts the echoed object out of the message and its causes (a real 422 body)', () => {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: ECHO,
      reason: 'Invalid',
      details: {
        name: 'db',
        kind: 'secrets',
        causes: [{ reason: 'FieldValueInvalid', message: ECHO, field: 'patch' }],
      },
      code: 422,
    });
    // Known for a Secret from the server's details alone (the REST client passes no ref).
    const error = statusError(422, body);
    expect(error._tag).toBe('Invalid');
    expect(error.message).toBe(
      'Secret "db" is invalid: patch: Invalid value: (sensitive value): illegal base64 data at input byte 0',
    );
    expectNoLeak(JSON.stringify(error));
    // Any kind: an echoed object is cut, what the server says about it stays.
    const configMapBody = body.replace('"kind":"secrets"', '"kind":"configmaps"');
    const configMap = statusError(422, configMapBody, undefined, { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    expect(configMap.message).toBe(
      'Secret "db" is invalid: patch: Invalid value: "(object redacted)": illegal base64 data at input byte 0',
    );
  });

  it('every value of the Secrets the plan touches is replaced, in clear, in base64 and escaped (unquoted echoes too)', () => {
    const texts = secretTexts([secret]);
    const unquoted = `conflict on {data: {password: ${base64Of(PASSWORD)}, other: ${OTHER}}} and ${JSON.stringify(LAST_APPLIED)}`;
    expectNoLeak(redactEcho(unquoted, texts).replace('last-applied-configuration', ''));
    expect(redactEcho(unquoted, texts)).toContain('(sensitive value)');
    const error = redactClusterError(
      clusterError('Invalid', ECHO, { causes: [{ message: `value ${PASSWORD}`, field: 'data[password]' }] }),
      texts,
    );
    expectNoLeak(JSON.stringify(error));
    expect(error.causes).toEqual([{ message: 'value (sensitive value)', field: 'data[password]' }]);
    // Nothing to hide: the very same error.
    const plain = clusterError('Conflict', 'the object has been modified');
    expect(redactClusterError(plain, texts)).toBe(plain);
  });

  it('non-Secrets give no texts; short values are not searched for', () => {
    expect(secretTexts([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: OTHER } }])).toEqual(
      [],
    );
    expect(secretTexts([{ ...secret, data: { a: base64Of('ok') } }]).some((text) => text === 'ok')).toBe(false);
  });
});
