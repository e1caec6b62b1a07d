/**
 * Memory adapter: seeded, reproducible fault injection (errors, latency, conflicts, outages, restarts, watch faults).
 */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createMemoryCluster, faultProfiles, ManualClock, type FaultProfile } from '../../../adapters/memory/index.js';
import { cmRef, configMap, failure, must, names, record } from './support.js';

/** A fixed workload; the answer of each call as a tag. */
const run = async (seed: number, profile: FaultProfile): Promise<ReadonlyArray<string>> => {
  const cluster = createMemoryCluster({ seed, faults: profile });
  const outcomes: string[] = [];
  for (let i = 0; i < 40; i++) {
    const created = await cluster.create(configMap(`cm-${i}`))();
    const read = await cluster.get(cmRef(`cm-${i}`))();
    outcomes.push(E.isLeft(created) ? created.left._tag : 'ok', E.isLeft(read) ? read.left._tag : 'ok');
  }
  return outcomes;
};

const halfFail: FaultProfile = { errors: [{ rate: 0.5, tag: 'Internal', code: 500 }] };

describe('fault injection', () => {
  it('keyed per call (forClient keyedFaults): each call meets the same faults whatever order the calls come in', async () => {
    /** Each ConfigMap's get, create, get, in the order of `order`, as `name op: tag`, sorted. */
    const faultsOf = async (order: ReadonlyArray<number>, keyed: boolean): Promise<ReadonlyArray<string>> => {
      const cluster = createMemoryCluster({ seed: 9, faults: halfFail }).forClient('controller', {
        keyedFaults: keyed,
      });
      const outcomes: string[] = [];
      const tag = (answer: E.Either<{ readonly _tag: string }, unknown>): string =>
        E.isLeft(answer) ? answer.left._tag : 'ok';
      for (const step of ['get', 'create', 'get again'])
        for (const i of order) {
          const answer =
            step === 'create' ? await cluster.create(configMap(`cm-${i}`))() : await cluster.get(cmRef(`cm-${i}`))();
          outcomes.push(`cm-${i} ${step}: ${tag(answer)}`);
        }
      return outcomes.sort();
    };
    const forward = Array.from({ length: 20 }, (_, i) => i);
    const backward = [...forward].reverse();
    const keyed = await faultsOf(forward, true);
    expect(await faultsOf(backward, true)).toEqual(keyed);
    expect(keyed.some((outcome) => outcome.endsWith('Internal'))).toBe(true);
    // one stream per client: the order the calls come in decides which of them fail
    expect(await faultsOf(backward, false)).not.toEqual(await faultsOf(forward, false));
  });

  it('is reproducible: the same seed gives the same failures, another seed others', async () => {
    const first = await run(42, halfFail);
    expect(await run(42, halfFail)).toEqual(first);
    expect(first).toContain('Internal');
    expect(first).toContain('ok');
    expect(await run(43, halfFail)).not.toEqual(first);
  });

  it('does not shift generated UIDs: faults draw from their own stream', async () => {
    const uids = async (faults: FaultProfile) => {
      const cluster = createMemoryCluster({ seed: 5, faults });
      await cluster.create(configMap('a'))();
      cluster.setFaults({});
      const created = await must(cluster.create(configMap('b')));
      return created.metadata.uid;
    };
    expect(await uids(halfFail)).toBe(await uids({}));
  });

  it('matches verbs and kinds; answers carry the configured code and Retry-After', async () => {
    const cluster = createMemoryCluster({
      faults: {
        errors: [
          { rate: 1, tag: 'TooManyRequests', code: 429, retryAfterMs: 1500, verbs: ['create'], kinds: ['Secret'] },
        ],
      },
    });
    await must(cluster.create(configMap('fine')));
    const error = await failure(
      cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } }),
    );
    expect(error).toMatchObject({ _tag: 'TooManyRequests', code: 429, retryAfterMs: 1500 });
    expect(E.isRight(await cluster.get({ apiVersion: 'v1', kind: 'Secret', name: 's', namespace: 'default' })())).toBe(
      true,
    );
  });

  it('an error before commit changes nothing; after commit the write is applied but the answer is lost', async () => {
    const cluster = createMemoryCluster({
      faults: { errors: [{ rate: 1, tag: 'Timeout', code: 504, verbs: ['create'], afterCommit: true }] },
    });
    expect((await failure(cluster.create(configMap('applied'))))._tag).toBe('Timeout');
    expect(await must(cluster.get(cmRef('applied')))).toMatchObject({ _tag: 'Some' });
    cluster.faults = { errors: [{ rate: 1, tag: 'Internal', verbs: ['create'] }] };
    expect((await failure(cluster.create(configMap('refused'))))._tag).toBe('Internal');
    expect(await must(cluster.get(cmRef('refused')))).toMatchObject({ _tag: 'None' });
  });

  it('latency: the call completes only once the injected clock has moved on', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({
      clock,
      faults: { latency: [{ minMs: 200, maxMs: 200, verbs: ['create'] }] },
    });
    let done = false;
    const pending = cluster
      .create(configMap('slow'))()
      .then((r) => {
        done = true;
        return r;
      });
    await clock.advance(199);
    expect(done).toBe(false);
    cluster.faults = {};
    expect(await must(cluster.get(cmRef('slow')))).toMatchObject({ _tag: 'None' });
    await clock.advance(1);
    expect(E.isRight(await pending)).toBe(true);
    expect(await must(cluster.get(cmRef('slow')))).toMatchObject({ _tag: 'Some' });
  });

  it('forced conflicts: a concurrent writer bumps the object, so a conditional update fails with 409 and a patch still applies', async () => {
    const cluster = createMemoryCluster();
    const created = await must(cluster.create(configMap('contested', { v: '1' })));
    cluster.setFaults({ conflicts: [{ rate: 1 }] });
    expect((await failure(cluster.update({ ...created, data: { v: '2' } })))._tag).toBe('Conflict');
    const patched = await must(cluster.patch(cmRef('contested'), { type: 'merge', body: { data: { v: '3' } } }));
    expect(patched.data).toEqual({ v: '3' });
    expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion) + 1);
  });

  it('unavailable window: every call answers Unavailable until the clock passes it; watches wait it out', async () => {
    const clock = new ManualClock(0);
    const cluster = createMemoryCluster({ clock });
    const open = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap' });
    await cluster.settle();
    cluster.unavailableFor(5_000);
    expect(await failure(cluster.get(cmRef('x')))).toMatchObject({ _tag: 'Unavailable', code: 0 });
    expect((await failure(cluster.create(configMap('x'))))._tag).toBe('Unavailable');
    expect((await failure(cluster.scopeOf('v1', 'ConfigMap')))._tag).toBe('Unavailable');
    const during = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap' });
    await clock.advance(4_999);
    expect([open.closes, during.closes]).toEqual([[], []]);
    await clock.advance(1);
    await must(cluster.create(configMap('x')));
    await cluster.settle();
    expect([names(open.events), names(during.events)]).toEqual([['ADDED:x'], ['ADDED:x']]);
  });

  it('restart: watches end with 410 Gone (the watch cache starts over); resuming from before is Gone, from now works', async () => {
    const cluster = createMemoryCluster();
    const before = await must(cluster.create(configMap('a')));
    const watch = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: before.metadata.resourceVersion,
    });
    await must(cluster.create(configMap('a2')));
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:a2']);
    cluster.restart();
    await cluster.settle();
    expect(watch.closes.map((e) => e?.code)).toEqual([410]);
    const resumed = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: before.metadata.resourceVersion,
    });
    const list = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap' }));
    const fresh = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: list.resourceVersion });
    await cluster.settle();
    await must(cluster.create(configMap('b')));
    await cluster.settle();
    expect(resumed.closes.map((e) => e?.code)).toEqual([410]);
    expect(names(fresh.events)).toEqual(['ADDED:b']);
  });

  it('expireWatches: open watches deliver what they have, then end with 410 Gone; resuming from before is Gone, a relist works', async () => {
    const cluster = createMemoryCluster();
    const before = await must(cluster.create(configMap('a')));
    const watch = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: before.metadata.resourceVersion,
    });
    await cluster.settle();
    const queued = must(cluster.create(configMap('b')));
    cluster.expireWatches();
    await queued;
    await cluster.settle();
    // The event committed before the compaction still arrives; nothing after it does.
    expect(names(watch.events)).toEqual(['ADDED:b']);
    expect(watch.closes.map((e) => [e?._tag, e?.code])).toEqual([['Gone', 410]]);
    await must(cluster.create(configMap('c')));
    const resumed = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: before.metadata.resourceVersion,
    });
    await cluster.settle();
    expect(resumed.closes.map((e) => e?.code)).toEqual([410]);
    // The server stayed up: reads work, and a watch from a fresh list's version sees what follows.
    const list = await must(cluster.list({ apiVersion: 'v1', kind: 'ConfigMap' }));
    expect(list.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    const fresh = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: list.resourceVersion });
    await must(cluster.create(configMap('d')));
    await cluster.settle();
    expect(names(fresh.events)).toEqual(['ADDED:d']);
    expect(fresh.closes).toEqual([]);
  });

  it('watch faults: an expired stream ends with 410 Gone after the event it expired at; versions before that event are Gone', async () => {
    const cluster = createMemoryCluster({ faults: { watch: { expireRate: 1, kinds: ['ConfigMap'] } } });
    const first = await must(cluster.create(configMap('a')));
    const watch = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: first.metadata.resourceVersion,
    });
    await must(cluster.create(configMap('b')));
    await must(cluster.create(configMap('c')));
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:b']);
    expect(watch.closes.map((e) => e?.code)).toEqual([410]);
    cluster.setFaults({});
    const resumed = record(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resourceVersion: first.metadata.resourceVersion,
    });
    await cluster.settle();
    expect(resumed.closes.map((e) => e?.code)).toEqual([410]);
  });

  it('watch faults: profiles without an expire rate draw the same numbers as before it existed', async () => {
    const observe = async (faults: FaultProfile) => {
      const cluster = createMemoryCluster({ seed: 11, faults });
      const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '3' });
      for (let i = 0; i < 30; i++) await must(cluster.create(configMap(`cm-${i}`)));
      await cluster.settle();
      return { events: names(watch.events), closes: watch.closes.length };
    };
    const plain = await observe({ watch: { duplicateRate: 0.2, closeRate: 0.05 } });
    expect(await observe({ watch: { duplicateRate: 0.2, closeRate: 0.05, expireRate: 0 } })).not.toEqual(plain);
    expect(await observe({ watch: { duplicateRate: 0.2, closeRate: 0.05 } })).toEqual(plain);
  });

  it('watch faults: duplicated events, reproducible per seed; no event is ever lost within a stream', async () => {
    const observe = async (seed: number, faults: FaultProfile) => {
      const cluster = createMemoryCluster({ seed, faults });
      const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '3' });
      for (let i = 0; i < 30; i++) await must(cluster.create(configMap(`cm-${i}`)));
      await cluster.settle();
      return names(watch.events);
    };
    const duplicated = await observe(9, { watch: { duplicateRate: 0.3 } });
    expect(duplicated.length).toBeGreaterThan(30);
    expect([...new Set(duplicated)]).toHaveLength(30);
    expect(duplicated.filter((n, i) => duplicated[i - 1] === n).length).toBe(duplicated.length - 30);
    expect(await observe(9, { watch: { duplicateRate: 0.3 } })).toEqual(duplicated);
  });

  it('watch faults: a cut stream ends cleanly after the event it was cut at', async () => {
    const cluster = createMemoryCluster({ faults: { watch: { closeRate: 1 } } });
    const watch = record(cluster, { apiVersion: 'v1', kind: 'ConfigMap', resourceVersion: '3' });
    await must(cluster.create(configMap('a')));
    await must(cluster.create(configMap('b')));
    await cluster.settle();
    expect(names(watch.events)).toEqual(['ADDED:a']);
    expect(watch.closes).toEqual([undefined]);
  });

  it('named profiles: none injects nothing; flaky and chaos inject something, deterministically', async () => {
    expect(await run(1, faultProfiles.none)).not.toContain('Internal');
    const withClock = async (profile: FaultProfile) => {
      const clock = new ManualClock(0);
      const cluster = createMemoryCluster({ clock, seed: 3, faults: profile });
      const tags: string[] = [];
      for (let i = 0; i < 60; i++) {
        const pending = cluster.create(configMap(`cm-${i}`))();
        await clock.advance(1_000);
        const result = await pending;
        tags.push(E.isLeft(result) ? result.left._tag : 'ok');
      }
      return tags;
    };
    const chaos = await withClock(faultProfiles.chaos);
    expect(chaos.filter((t) => t !== 'ok').length).toBeGreaterThan(0);
    expect(await withClock(faultProfiles.chaos)).toEqual(chaos);
    expect((await withClock(faultProfiles.flaky)).filter((t) => t !== 'ok').length).toBeGreaterThan(0);
  });
});
