/**
 * A readiness rule cannot read a Secret aloud (issue 36 item 9): a tenant adopts a Secret and
 * writes rules that try every way out — the evaluator's error text (a failed `duration`, `int`,
 * `timestamp` of a value), the values a rule references (data, the annotations holding kubectl's
 * last-applied-configuration with `stringData` in clear), string functions and comparisons, a
 * `failed` rule, a timeout, a rule over its bounds, the rule's own source. No verdict, wait message
 * or condition holds the value in any form: base64 as stored, decoded, base64 of the plaintext,
 * JSON-escaped inside the annotation.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { celEvaluator } from '../../adapters/cel/cel-evaluator.js';
import type { Resource } from '../../core/internal.js';
import type { CompiledExpression } from '../../core/ports/expressions.js';
import { scrubTexts, sensitiveTexts } from '../../core/sensitive/scrub.js';
import { capMessage, MAX_STATUS_MESSAGE_BYTES } from '../../core/status/message-cap.js';
import { verdictOf, type ReadinessRule } from '../../core/status/readiness-rules.js';
import { IsolatedRules } from '../../app/isolation/isolated-rules.js';

const API_KEY = 'PLAINTEXT-API-KEY-4711';
const API_KEY_BASE64 = Buffer.from(API_KEY).toString('base64'); // UExBSU5URVhULUFQSS1LRVktNDcxMQ==
const PASSWORD = 'hunter2-correct-horse';
const LAST_APPLIED = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'alice' },
  stringData: { password: PASSWORD },
  data: { apikey: API_KEY_BASE64 },
});

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 'creds',
    namespace: 'alice',
    uid: 'u1',
    resourceVersion: '7',
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': LAST_APPLIED },
    labels: { token: 'label-held-token-value' },
  },
  type: 'Opaque',
  data: { apikey: API_KEY_BASE64, password: Buffer.from(PASSWORD).toString('base64') },
} as unknown as Resource;

/** Every form a leak could take. */
const FORBIDDEN = [
  API_KEY,
  API_KEY_BASE64,
  API_KEY_BASE64.slice(0, 20),
  PASSWORD,
  Buffer.from(PASSWORD).toString('base64'),
  'label-held-token-value',
  JSON.stringify(LAST_APPLIED).slice(1, -1).slice(0, 40),
  LAST_APPLIED.slice(0, 40),
];

const LAST = "self.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']";

/** Rules that try to make the message carry a value. */
const HOSTILE = [
  'duration(self.data.apikey) > duration("1s")',
  'int(self.data.apikey) > 0',
  `timestamp(${LAST}) > timestamp("2020-01-01T00:00:00Z")`,
  `duration(${LAST}) > duration("1s")`,
  'self.metadata.annotations.size() == 0',
  `${LAST}.contains("nothing")`,
  `${LAST}.startsWith("x")`,
  'self.data.apikey.startsWith("zzz")',
  'self.data.apikey.lowerAscii() == "x"',
  'self.data.apikey == "something else"',
  'self.data.apikey < "A"',
  'self.data.apikey + 1 == 2',
  'self.data == {"a": "b"}',
  'self.data.password.size() > 1000',
  'self.metadata.labels.token == "x"',
  'self.data.nothere == self.data.apikey',
  'self.data[self.data.apikey] == "x"',
  `self.metadata.annotations[${LAST}] == "x"`,
  'self.data.apikey',
  `self.data.apikey == "${API_KEY_BASE64}"`,
];

const compiled = (source: string): CompiledExpression => {
  const result = celEvaluator.compile(source);
  if (E.isLeft(result)) throw new Error(`${source}: ${result.left.message}`);
  return result.right;
};

const leaks = (text: string): ReadonlyArray<string> => FORBIDDEN.filter((form) => text.includes(form));

describe('a readiness rule over a Secret gives nothing away', () => {
  it.each(HOSTILE)('ready rule %s: waiting, failed after its timeout, and as a failed rule', (source) => {
    const rule: ReadinessRule = { kind: 'Secret', ready: compiled(source), timeoutMs: 1_000 };
    const waiting = verdictOf(rule, secret, { nowMs: 0, waitingSinceMs: 0 });
    const timedOut = verdictOf(rule, secret, { nowMs: 5_000, waitingSinceMs: 0 });
    const asFailed = verdictOf({ kind: 'Secret', ready: compiled('false'), failed: compiled(source) }, secret, {
      nowMs: 0,
    });
    for (const verdict of [waiting, timedOut, asFailed]) {
      expect(leaks(JSON.stringify(verdict))).toEqual([]);
      if (verdict.state !== 'ready') expect(verdict.reason).toContain('Secret alice/creds');
    }
  });

  it('says why a rule cannot be evaluated without the library text, and names the rule', () => {
    const rule: ReadinessRule = { kind: 'Secret', ready: compiled('duration(self.data.apikey) > duration("1s")') };
    expect(verdictOf(rule, secret, { nowMs: 0 })).toEqual({
      state: 'waiting',
      reason:
        'Secret alice/creds: ready rule `duration(self.data.apikey) > duration("1s")` (data.apikey=(masked)) cannot be evaluated yet (the evaluation error is not shown: the object is a Secret)',
    });
    // The same rule over a ConfigMap says what the library says (the finding: it quoted the value).
    const configMap = { ...secret, kind: 'ConfigMap' } as Resource;
    expect(verdictOf({ kind: 'ConfigMap', ready: rule.ready }, configMap, { nowMs: 0 })).toMatchObject({
      reason: expect.stringContaining(API_KEY_BASE64) as string,
    });
  });

  it('masks every value read, annotations included, but the identity', () => {
    const rule: ReadinessRule = {
      kind: 'Secret',
      ready: compiled('self.metadata.annotations.size() == 0 && self.metadata.name == "x"'),
    };
    expect(verdictOf(rule, secret, { nowMs: 0 })).toEqual({
      state: 'waiting',
      reason:
        'Secret alice/creds: ready rule `self.metadata.annotations.size() == 0 && self.metadata.name == "x"` (metadata.annotations=(masked), metadata.name="creds") is false',
    });
  });

  it('scrubs a value written into the rule itself', () => {
    const source = `self.data.apikey == "${API_KEY_BASE64}" && false`;
    const verdict = verdictOf({ kind: 'Secret', ready: compiled(source) }, secret, { nowMs: 0 });
    expect(verdict.state === 'waiting' && verdict.reason).toContain('self.data.apikey == "(sensitive value)" && false');
  });

  it('finds every form of every value: raw, decoded, base64, JSON-escaped, inside the annotation', () => {
    const texts = sensitiveTexts(secret);
    const message = `a ${API_KEY} b ${API_KEY_BASE64} c ${PASSWORD} d ${JSON.stringify(LAST_APPLIED)} e ${Buffer.from(API_KEY_BASE64).toString('base64')}`;
    const scrubbed = scrubTexts(message, texts);
    expect(leaks(scrubbed)).toEqual([]);
    expect(scrubbed).toContain('(sensitive value)');
    // The identity stays readable.
    expect(texts).not.toContain('creds');
    expect(texts).not.toContain('Secret');
  });

  it('evaluated in a worker, a Secret rule still shows no value', async () => {
    const rules = new IsolatedRules({ timeoutMs: 5_000 });
    try {
      const specs = HOSTILE.slice(0, 6).map((ready) => ({ kind: 'Secret', ready }));
      for (const spec of specs) {
        const evaluator = await rules.evaluatorFor('alice/app', [spec], [secret]);
        const ready = evaluator.compile(spec.ready);
        if (E.isLeft(ready)) throw new Error(ready.left.message);
        const verdict = verdictOf({ kind: 'Secret', ready: ready.right }, secret, { nowMs: 0 });
        expect(verdict.state).toBe('waiting');
        expect(leaks(JSON.stringify(verdict))).toEqual([]);
      }
    } finally {
      await rules.close();
    }
  }, 60_000);
});

describe('the status message cap', () => {
  it('keeps short messages, cuts long ones within the bound with a marker, never inside a character', () => {
    expect(capMessage('short')).toBe('short');
    const long = capMessage('é'.repeat(10_000));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_BYTES);
    expect(long.endsWith('… (truncated)')).toBe(true);
    expect(long).not.toContain('\uFFFD');
    const emoji = capMessage('😀'.repeat(5_000), 100);
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(100);
    expect(emoji.startsWith('😀')).toBe(true);
  });

  it('bounds a readiness reason over a large value', () => {
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'alice' },
      data: { big: 'x'.repeat(400_000) },
    } as Resource;
    const verdict = verdictOf({ kind: 'ConfigMap', ready: compiled('self.data.big == "y"') }, configMap, {
      nowMs: 0,
    });
    expect(verdict.state === 'waiting' && Buffer.byteLength(verdict.reason)).toBeLessThan(2_100);
  });
});
