/**
 * How the adapter turns client failures into ClusterErrors, without a server: ApiException
 * bodies are raw JSON strings, Watch errors carry `statusCode`, undici fails with TypeError.
 */
import { describe, expect, it } from 'vitest';
import { parseStatus, retryAfterMs, statusError, toClusterError } from '../../adapters/kubernetes/api-errors.js';

// Shaped like client-node's ApiException (only the adapter may import the library itself).
const apiException = (code: number, body: string | undefined, headers: Record<string, string> = {}): Error =>
  Object.assign(new Error(`HTTP-Code: ${code}`), { code, body, headers });

const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' };

describe('Kubernetes error mapping', () => {
  it('parses the raw JSON body of an ApiException: reason, message, causes, Retry-After', () => {
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: 'ConfigMap "a" is invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data.x' }] },
    });
    const error = toClusterError(apiException(422, body, { 'retry-after': '3' }), ref);
    expect(error).toEqual({
      _tag: 'Invalid',
      code: 422,
      message: 'ConfigMap "a" is invalid',
      ref,
      causes: [{ message: 'bad', field: 'data.x', reason: 'FieldValueInvalid' }],
      retryAfterMs: 3000,
    });
  });

  it('tells AlreadyExists from Conflict by reason, and keeps 429 Retry-After', () => {
    const exists = statusError(409, JSON.stringify({ reason: 'AlreadyExists', message: 'exists' }));
    const conflict = statusError(409, JSON.stringify({ reason: 'Conflict', message: 'modified' }));
    const throttled = statusError(
      429,
      JSON.stringify({ reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 2 } }),
    );
    expect([exists._tag, conflict._tag, throttled._tag, throttled.retryAfterMs]).toEqual([
      'AlreadyExists',
      'Conflict',
      'TooManyRequests',
      2000,
    ]);
  });

  it('survives bodies that are not Status JSON (401 has none; proxies send text)', () => {
    expect(toClusterError(apiException(401, undefined))).toMatchObject({ _tag: 'Unauthorized', code: 401 });
    expect(statusError(502, 'Bad Gateway')).toMatchObject({ _tag: 'Internal', code: 502, message: 'Bad Gateway' });
    expect(parseStatus('{not json')).toEqual({ message: '{not json' });
  });

  it('maps network failures to Unavailable (code 0) and client timeouts to Timeout', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const network = toClusterError(new TypeError('fetch failed', { cause: refused }), ref);
    expect([network._tag, network.code, network.ref]).toEqual(['Unavailable', 0, ref]);
    expect(network.message).toContain('ECONNREFUSED');
    const timeout = toClusterError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    expect([timeout._tag, timeout.code]).toEqual(['Timeout', 0]);
  });

  it('maps Watch errors by their statusCode (410 is Gone)', () => {
    const gone = Object.assign(new Error('Gone'), { statusCode: 410 });
    expect(toClusterError(gone)._tag).toBe('Gone');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:10 GMT', 4_000)).toBe(6_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
