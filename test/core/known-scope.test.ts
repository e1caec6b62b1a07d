/** Scopes as planning looks them up: remembered per table, learned from live objects only for kinds the table lacks. */
import { describe, expect, it } from 'vitest';
import { builtinScopes, plan, scopeOf, type Resource, type ScopeTable } from '../../core/internal.js';
import { knownScope } from '../../core/manifest/identity.js';
import { application, marked, served } from './fixtures.js';

const widget = (namespace?: string): Resource => ({
  apiVersion: 'toys.example/v1',
  kind: 'Widget',
  metadata: { name: 'w', ...(namespace === undefined ? {} : { namespace }) },
  spec: { size: 1 },
});

describe('knownScope', () => {
  it('answers as scopeOf, the first time and every later time', () => {
    const asked = [
      ['apps/v1', 'Deployment'],
      ['v1', 'Namespace'],
      ['toys.example/v1', 'Widget'],
      ['apps/v2', 'Deployment'],
    ] as const;
    for (let round = 0; round < 2; round++) {
      for (const [apiVersion, kind] of asked)
        expect(knownScope(builtinScopes, apiVersion, kind)).toBe(scopeOf(builtinScopes, { apiVersion, kind }));
    }
    expect(knownScope(builtinScopes, 'v1', 'Namespace')).toBe('Cluster');
    expect(knownScope(builtinScopes, 'toys.example/v1', 'Widget')).toBeUndefined();
  });

  it('stays right past the number of kinds it remembers (a tenant can write any number)', () => {
    const table: ScopeTable = new Map([['toys.example/Widget', 'Namespaced']]);
    for (let i = 0; i < 1100; i++) expect(knownScope(table, 'toys.example/v1', `Kind${i}`)).toBeUndefined();
    expect(knownScope(table, 'toys.example/v1', 'Widget')).toBe('Namespaced');
    expect(knownScope(table, 'toys.example/v1', 'Kind1099')).toBeUndefined();
  });
});

describe('plan: scopes learned from the live snapshot', () => {
  it('a kind the table lacks is known once a live object of it is read (namespaced: it has a namespace)', () => {
    const desired = widget();
    const unknown = plan({
      application: application({ manifest: [desired] }),
      live: [],
      scopes: builtinScopes,
      now: 'now',
    });
    expect(unknown.status.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('UnknownKind');
    const learned = plan({
      application: application({ manifest: [desired] }),
      live: [served(marked(widget('default')))],
      scopes: builtinScopes,
      now: 'now',
    });
    expect(learned.status.conditions?.find((c) => c.type === 'Ready')?.reason).not.toBe('UnknownKind');
    expect(learned.summary).toMatchObject({ create: 0, patch: 0, delete: 0, conflict: 0 });
  });
});
