/** The hook Secret: one per namespace, tokens only from the context and never in status. */
import { describe, expect, it } from 'vitest';
import { base64Of, hookSecretName, plan, withoutHookTokens, type Resource } from './imports.js';
import { OPEN_TENANCY, actionsOf, application, scopes } from '../fixtures.js';
import { b64, CONTEXT, created, SECRET_NAME, TOKENS } from './support.js';

const NOW = '2025-01-01T00:00:00Z';
const pod = (name: string, namespace?: string): Resource => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

describe('the hook Secret', () => {
  it('one per namespace of the desired resources; cluster-scoped resources add none', () => {
    const manifest = [
      pod('a'),
      pod('b', 'team-b'),
      pod('c', 'team-b'),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } } as Resource,
    ];
    const result = plan({
      application: application({ manifest, hooks: ['complete'] }),
      live: [],
      scopes,
      now: NOW,
      options: { hooks: CONTEXT, tenancy: OPEN_TENANCY },
    });
    const secrets = actionsOf(result, 'create')
      .filter((action) => action.ref.kind === 'Secret')
      .map((action) => action.ref);
    expect(secrets).toEqual([
      { apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: SECRET_NAME },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'team-b', name: SECRET_NAME },
    ]);
    const kinds = result.actions.filter((a) => a.type === 'create').map((a) => a.ref.kind);
    expect(kinds).toEqual(['Namespace', 'Secret', 'Secret', 'Pod', 'Pod', 'Pod']);
  });

  it('is owned by the Application (marks and ownerReference in its namespace)', () => {
    const result = plan({
      application: application({ manifest: [pod('a')], hooks: ['complete'] }),
      live: [],
      scopes,
      now: NOW,
      options: { hooks: CONTEXT },
    });
    const secret = created(result, 'Secret') as Resource;
    expect(secret.metadata.annotations?.['kreconcile.io/owner']).toBe('default/app');
    expect(secret.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Application',
      name: 'app',
      uid: 'app-uid',
      controller: true,
    });
  });

  it('the tokens never reach status (desired or observed), only the create body', () => {
    const result = plan({
      application: application({ manifest: [pod('a')], hooks: ['complete', 'shutdown'] }),
      live: [],
      scopes,
      now: NOW,
      options: { hooks: CONTEXT },
    });
    const status = JSON.stringify(result.status);
    for (const token of Object.values(TOKENS)) {
      expect(status).not.toContain(token);
      expect(status).not.toContain(b64(token));
    }
    expect(JSON.stringify(created(result, 'Secret'))).toContain(b64(TOKENS.complete));
    const recorded = result.status.lastAppliedManifest?.find((r) => r.kind === 'Secret');
    expect(recorded?.data).toEqual({ 'complete-url': expect.any(String), 'shutdown-url': expect.any(String) });
  });

  it('without a context (a preview such as `kreconcile plan`) the Secret holds nothing invented', () => {
    const result = plan({
      application: application({ manifest: [pod('a')], hooks: ['complete'] }),
      live: [],
      scopes,
      now: NOW,
    });
    expect(created(result, 'Secret')?.data).toEqual({});
    expect(result.status.mangledObserverSchema?.find((s) => s.kind === 'Secret')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: SECRET_NAME, namespace: null },
    });
  });

  it('withoutHookTokens leaves other Secrets alone', () => {
    const other = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'mine', namespace: 'default' },
      data: { 'x-token': 'eA==' },
    } as Resource;
    expect(withoutHookTokens([other], { namespace: 'default', name: 'app' })).toEqual([other]);
  });

  it('names include the Application namespace; too long a name is shortened deterministically', () => {
    expect(hookSecretName({ namespace: 'shop', name: 'web' })).toBe('web.shop.kreconcile-hooks');
    const long = hookSecretName({ namespace: 'n'.repeat(63), name: 'a'.repeat(253) });
    expect(long.length).toBeLessThanOrEqual(253);
    expect(long).toBe(hookSecretName({ namespace: 'n'.repeat(63), name: 'a'.repeat(253) }));
  });

  it('base64Of matches Buffer for ASCII, multi-byte and astral text', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'http://x.svc:8080/v1', 'héllo wörld', '日本語', '🦀 crab', 'x\u0000y']) {
      expect(base64Of(text)).toBe(b64(text));
    }
  });
});
