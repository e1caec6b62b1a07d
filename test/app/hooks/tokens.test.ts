/** Tokens on the runtime side: read back from live Secrets we own, remembered as a fallback, else new. */
import { describe, expect, it } from 'vitest';
import { HookTokens, generateToken, liveTokens } from '../../../app/hooks/tokens.js';
import type { Application, Resource } from '../../../core/internal.js';

const owner = { namespace: 'shop', name: 'web' };
const app = (hooks: ReadonlyArray<'complete' | 'shutdown'>, uid = 'u1'): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'shop', uid },
  spec: { manifest: [], hooks },
});
const secret = (namespace: string, data: Record<string, string>, mark = 'shop/web'): Resource => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'web.shop.kreconcile-hooks', namespace, annotations: { 'kreconcile.io/owner': mark } },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

describe('liveTokens', () => {
  it('the Application namespace first, then by namespace; duplicates once', () => {
    const objects = [
      secret('b', { 'complete-token': 'tb' }),
      secret('shop', { 'complete-token': 'ts' }),
      secret('a', { 'complete-token': 'ts' }),
    ];
    expect(liveTokens(objects, owner, 'complete')).toEqual(['ts', 'tb']);
    expect(
      liveTokens([secret('b', { 'complete-token': 'tb' }), secret('a', { 'complete-token': 'ta' })], owner, 'complete'),
    ).toEqual(['ta', 'tb']);
  });

  it('ignores a Secret of the right name planted by someone else (no owner mark of ours)', () => {
    expect(liveTokens([secret('shop', { 'complete-token': 'planted' }, 'other/app')], owner, 'complete')).toEqual([]);
  });

  it('ignores missing and empty keys', () => {
    expect(liveTokens([secret('shop', { 'complete-token': '' }), secret('x', {})], owner, 'complete')).toEqual([]);
  });
});

describe('HookTokens', () => {
  it('generates a token per enabled hook once, then keeps it (same context object while nothing changes)', () => {
    let n = 0;
    const tokens = new HookTokens(() => `t${n++}`);
    const first = tokens.contextFor(app(['complete', 'shutdown']), [], 'http://cb');
    expect(first).toEqual({ callbackUrl: 'http://cb', tokens: { complete: 't0', shutdown: 't1' } });
    expect(tokens.contextFor(app(['complete', 'shutdown']), [], 'http://cb')).toBe(first);
  });

  it('prefers the live Secret over memory (the Secret is the source of truth)', () => {
    const tokens = new HookTokens(() => 'generated');
    tokens.contextFor(app(['complete']), [], 'http://cb');
    expect(
      tokens.contextFor(app(['complete']), [secret('shop', { 'complete-token': 'live' })], 'http://cb').tokens,
    ).toEqual({ complete: 'live' });
  });

  it('forgets a deleted Application; a re-created one (new uid) gets a new token', () => {
    let n = 0;
    const tokens = new HookTokens(() => `t${n++}`);
    tokens.contextFor(app(['complete']), [], 'http://cb');
    expect(tokens.contextFor(app(['complete'], 'u2'), [], 'http://cb').tokens).toEqual({ complete: 't1' });
    tokens.forget('shop', 'web');
    expect(tokens.size).toBe(0);
  });

  it('generateToken: 256 random bits, URL-safe, never twice the same', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });
});
