/**
 * The stored status (core/manifest/stored-status.ts, decision 0023): packing keeps references only
 * where regenerating gives the very same JSON, so unpacking gives back exactly the status that was
 * packed, and a plan from the unpacked status is the plan from the original.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { plan, type ApplicationStatus, type JsonObject } from '../../core/internal.js';
import { packManifests, unpackManifests } from '../../core/manifest/stored-status.js';
import { OPEN_TENANCY } from './fixtures.js';
import { run, scenarioArbitrary, scopes } from './scenario.js';

/** The status with its lists packed and read back (as JSON text: what is stored). */
const roundTrip = (status: ApplicationStatus): ApplicationStatus => {
  const packed: unknown = JSON.parse(JSON.stringify(packManifests(status)));
  const lists = unpackManifests(packed as JsonObject); // JSON.parse of an object's text: an object
  if (E.isLeft(lists)) throw new Error(lists.left);
  return { ...status, ...lists.right };
};

const lists = (status: ApplicationStatus): string =>
  JSON.stringify([status.mangledObserverSchema, status.lastAppliedManifest, status.lastObservedManifest]);

describe('the stored status', () => {
  it('unpacks to exactly the lists packed, and plans from it equal plans from the original', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { planA, planB, planC, appB, live2 } = run(scenario);
        for (const planned of [planA, planB, planC])
          expect(lists(roundTrip(planned.status))).toBe(lists(planned.status));
        // Planning from the round-tripped status (what an operator reads back) gives the same plan.
        const status = planB.status;
        const input = { live: live2, scopes, now: 't3', options: { tenancy: OPEN_TENANCY } };
        const direct = plan({ ...input, application: { ...appB, status } });
        const stored = plan({ ...input, application: { ...appB, status: roundTrip(status) } });
        expect(JSON.stringify(stored)).toBe(JSON.stringify(direct));
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a reference to no entry, naming the list', () => {
    expect(
      unpackManifests({ format: 1, lastAppliedManifest: [], mangledObserverSchema: [{ generatedFrom: 3 }] }),
    ).toEqual(E.left('mangledObserverSchema: a reference to no lastAppliedManifest entry'));
    expect(unpackManifests({ format: 2 })).toEqual(E.left('format: expected 1 (written by a newer kreconcile?)'));
  });
});
