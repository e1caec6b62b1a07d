/**
 * Live reads from the runtime's caches (app/reconcile/live-reader.ts): an Application whose objects
 * did not change gets the very same list at every read (the planner's per-list memo keeps hitting at
 * a resync), a changed or vanished object gives a new list, and each object is listed once however
 * it was found (as a desired object and by its owner mark).
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { readLive, type LiveCache } from '../../../app/reconcile/live-reader.js';
import {
  OWNER_ANNOTATION,
  builtinScopes,
  createMemo,
  decodeApplication,
  type Application,
  type ClusterReader,
  type Resource,
} from '../../../core/internal.js';

const application = (manifest: ReadonlyArray<Resource>): Application => {
  const decoded = decodeApplication({
    apiVersion: 'kreconcile.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'app', namespace: 'default' },
    spec: { manifest },
  });
  if (E.isLeft(decoded)) throw new Error('the test Application does not decode');
  return decoded.right;
};

const configMap = (name: string, data: Record<string, string> = {}): Resource => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', annotations: { [OWNER_ANNOTATION]: 'default/app' } },
  data,
});

/** A synced cache of ConfigMaps (and nothing else) holding `objects` by name; the owner index is every object. */
const cacheOf = (objects: Map<string, Resource>): LiveCache => ({
  kind: (kind) =>
    kind.apiVersion === 'v1' && kind.kind === 'ConfigMap'
      ? { get: (_namespace, name) => objects.get(name) }
      : undefined,
  ownedBy: (mark) => [...objects.values()].filter((object) => object.metadata.annotations?.[OWNER_ANNOTATION] === mark),
});

/** Reads nothing: every read here must come from the cache. */
const noReads: ClusterReader = {
  get: () => () => Promise.reject(new Error('read the API server')),
  list: () => () => Promise.reject(new Error('listed the API server')),
};

const read = async (app: Application, cache: LiveCache, memo = createMemo()) => {
  const live = await readLive(app, builtinScopes, noReads, { cache, optimisticCreates: true, memo });
  if (E.isLeft(live)) throw new Error(live.left.message);
  return live.right;
};

describe('live reads from the caches', () => {
  it('answer the very same list while nothing changed, a new one once an object changed', async () => {
    const objects = new Map([
      ['a', configMap('a')],
      ['b', configMap('b')],
    ]);
    const app = application([configMap('a'), configMap('b')]);
    const cache = cacheOf(objects);
    const memo = createMemo();
    const first = await read(app, cache, memo);
    expect(first).toEqual([objects.get('a'), objects.get('b')]);
    expect(await read(app, cache, memo)).toBe(first);
    objects.set('b', configMap('b', { changed: 'yes' }));
    const second = await read(app, cache, memo);
    expect(second).not.toBe(first);
    expect(second).toEqual([objects.get('a'), objects.get('b')]);
    expect(await read(app, cache, memo)).toBe(second);
    objects.delete('a');
    expect(await read(app, cache, memo)).toEqual([objects.get('b')]);
  });

  it('list each object once, desired ones first, then other objects carrying the owner mark', async () => {
    const objects = new Map([
      ['old', configMap('old')],
      ['a', configMap('a')],
    ]);
    // `a` is desired twice and found again by its mark; `old` is no longer desired but still ours (to prune).
    const app = application([configMap('a'), configMap('a')]);
    const live = await read(app, cacheOf(objects));
    expect(live).toEqual([objects.get('a'), objects.get('old')]);
    expect(live[0]).toBe(objects.get('a'));
  });

  it('look nothing up again while the caches revision stays, and see every change once it moves', async () => {
    const objects = new Map([['a', configMap('a')]]);
    let revision = 1;
    let lookups = 0;
    const plain = cacheOf(objects);
    const cache: LiveCache = {
      kind: (kind) => {
        lookups++;
        return plain.kind(kind);
      },
      ownedBy: plain.ownedBy,
      revision: () => revision,
    };
    const app = application([configMap('a')]);
    const memo = createMemo();
    const first = await read(app, cache, memo);
    const afterFirst = lookups;
    expect(afterFirst).toBeGreaterThan(0);
    expect(await read(app, cache, memo)).toBe(first);
    expect(lookups).toBe(afterFirst);
    objects.set('a', configMap('a', { changed: 'yes' }));
    revision++;
    const changed = await read(app, cache, memo);
    expect(changed).toEqual([objects.get('a')]);
    expect(changed).not.toBe(first);
    // Read by another option (a create refused: misses confirmed), the caches are asked again.
    const confirmed = await readLive(app, builtinScopes, noReads, { cache, optimisticCreates: false, memo });
    expect(lookups).toBeGreaterThan(afterFirst + 1);
    expect(confirmed).toEqual(E.right([objects.get('a')]));
  });

  it('read the same without a memo, each read a list of its own', async () => {
    const objects = new Map([['a', configMap('a')]]);
    const app = application([configMap('a')]);
    const cache = cacheOf(objects);
    const once = await readLive(app, builtinScopes, noReads, { cache, optimisticCreates: true });
    const twice = await readLive(app, builtinScopes, noReads, { cache, optimisticCreates: true });
    expect(once).toEqual(E.right([objects.get('a')]));
    expect(twice).toEqual(once);
  });
});
