/**
 * The runtime's scope table alone, against the memory cluster's discovery: a kind is learned once
 * its CRD is served, forgotten when the server stops serving it (built-in kinds never are), and
 * each change is a new table, so a plan keeps the one it was made with.
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, flushMicrotasks } from '../../../adapters/memory/index.js';
import { KnownScopes, UnservedKinds } from '../../../app/runtime/known-scopes.js';
import { decodeApplication, type Application } from '../../../core/internal.js';
import { widgetCrd, widgetGroup } from '../../support/test-crds.js';

const WIDGET = { apiVersion: `${widgetGroup}/v1`, kind: 'Widget' };
const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };

const naming = (...kinds: ReadonlyArray<{ apiVersion: string; kind: string }>): Application => {
  const decoded = decodeApplication({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { manifest: kinds.map((kind, i) => ({ ...kind, metadata: { name: `child-${i}` } })) },
  });
  if (E.isLeft(decoded)) throw new Error('fixture does not decode');
  return decoded.right;
};

describe('KnownScopes', () => {
  it('learns a kind once the server serves it, forgets it when it stops, and never forgets a built-in kind', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(0) });
    const scopes = new KnownScopes();
    const application = naming(WIDGET, CONFIG_MAP);
    expect(scopes.knows(CONFIG_MAP)).toBe(true);
    await scopes.learnKindsOf(application, cluster);
    expect(scopes.knows(WIDGET)).toBe(false);
    expect(E.isRight(await cluster.create(widgetCrd)())).toBe(true);
    const before = scopes.current;
    await scopes.learnKindsOf(application, cluster);
    expect(scopes.knows(WIDGET)).toBe(true);
    expect(scopes.current).not.toBe(before);
    expect(before.size).toBe(scopes.current.size - 1);
    const learned = scopes.current;
    scopes.forget(WIDGET);
    scopes.forget(CONFIG_MAP);
    expect(scopes.knows(WIDGET)).toBe(false);
    expect(scopes.knows(CONFIG_MAP)).toBe(true);
    // The table a plan was made with is never changed under it.
    expect(learned.size).toBe(scopes.current.size + 1);
  });

  it('asks discovery again only while an Application names a kind the current table does not know', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(0) });
    const asked: string[] = [];
    const discovery = {
      scopeOf: (apiVersion: string, kind: string) => {
        asked.push(kind);
        return cluster.scopeOf(apiVersion, kind);
      },
    };
    const scopes = new KnownScopes();
    const application = naming(WIDGET, CONFIG_MAP);
    await scopes.learnKindsOf(application, discovery);
    await scopes.learnKindsOf(application, discovery);
    expect(asked).toEqual(['Widget', 'Widget']);
    expect(E.isRight(await cluster.create(widgetCrd)())).toBe(true);
    await scopes.learnKindsOf(application, discovery);
    await scopes.learnKindsOf(application, discovery);
    expect(asked).toEqual(['Widget', 'Widget', 'Widget']);
    // A new table (the kind forgotten) is looked at again.
    scopes.forget(WIDGET);
    await scopes.learnKindsOf(application, discovery);
    expect(asked).toEqual(['Widget', 'Widget', 'Widget', 'Widget']);
    expect(scopes.knows(WIDGET)).toBe(true);
  });

  it('tells its owner once of each kind it forgets, whoever found it gone, and never of a built-in kind', async () => {
    const cluster = createMemoryCluster({ clock: new ManualClock(0) });
    const forgotten: string[] = [];
    const scopes = new KnownScopes(undefined, undefined, (kind) => forgotten.push(kind.kind));
    expect(E.isRight(await cluster.create(widgetCrd)())).toBe(true);
    await scopes.learnKindsOf(naming(WIDGET, CONFIG_MAP), cluster);
    // A reconcile's UnknownKind and then the child watch's notice: the second changes nothing.
    expect(scopes.forget(WIDGET)).toBe(true);
    expect(scopes.forget(WIDGET)).toBe(false);
    expect(scopes.forget(CONFIG_MAP)).toBe(false);
    expect(forgotten).toEqual(['Widget']);
  });
});

describe('UnservedKinds', () => {
  it('asks discovery every period only while someone waits, and hands over the waiting keys once the kind is served', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const asked: string[] = [];
    const served: Array<{ kind: string; keys: ReadonlyArray<string> }> = [];
    const unserved = new UnservedKinds({
      discovery: {
        scopeOf: (apiVersion, kind) => {
          asked.push(kind);
          return cluster.scopeOf(apiVersion, kind);
        },
      },
      clock,
      everyMs: 1_000,
      onServed: (kind, keys) => served.push({ kind: kind.kind, keys }),
    });
    const tick = async (ms: number) => {
      await clock.advance(ms);
      await flushMicrotasks();
    };
    await tick(5_000);
    expect(asked).toEqual([]);
    unserved.wait('default/a', [WIDGET]);
    unserved.wait('default/b', [WIDGET]);
    unserved.wait('default/c', [WIDGET]);
    unserved.release('default/c');
    await tick(1_000);
    await tick(1_000);
    expect(asked).toEqual(['Widget', 'Widget']);
    expect(served).toEqual([]);
    expect(E.isRight(await cluster.create(widgetCrd)())).toBe(true);
    await tick(1_000);
    expect(served).toEqual([{ kind: 'Widget', keys: ['default/a', 'default/b'] }]);
    expect(unserved.kinds).toEqual([]);
    // Nobody waits: discovery is not asked any more.
    await tick(10_000);
    expect(asked).toHaveLength(3);
    unserved.stop();
  });
});
