/**
 * `plan` is a pure function (issue 18): equal inputs give equal plans, whatever else was planned
 * before, in whatever order, with or without a memo. Applications here share sub-objects the way a
 * library user's do (stamped from one template, planned against one live list, one options object
 * and one scope table): each plan must deep-equal the plan of a deep copy of its input planned alone.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { freeze } from 'immer';
import {
  FINALIZER,
  builtinScopes,
  createMemo,
  createPlanner,
  plan,
  type Application,
  type ApplicationSpec,
  type ApplicationStatus,
  type PlanInput,
  type PlanOptions,
  type Resource,
  type ScopeTable,
} from '../../core/internal.js';
import {
  applyLiveEdits,
  arbitraryScopes,
  liveEditsArbitrary,
  manifestArbitrary,
  type LiveEdit,
} from '../../core/model/resource.arbitrary.js';
import { OPEN_TENANCY, execute, served } from './fixtures.js';
import { CONTEXT } from './hooks/support.js';

const RUNS = { numRuns: Math.max(300, Number(process.env.KRECONCILE_PROPERTY_RUNS ?? 0)) };
const NOW = '2026-01-01T00:00:00Z';

/** Options objects, shared between Applications by index (the hook context names no owner). */
const OPTIONS: ReadonlyArray<PlanOptions | undefined> = [
  undefined,
  { tenancy: OPEN_TENANCY },
  { tenancy: OPEN_TENANCY, hooks: CONTEXT },
  { tenancy: OPEN_TENANCY, readiness: 'existence', hooks: CONTEXT },
];

/** Scope tables: two with equal content and different identities, and one knowing more kinds. */
const SCOPES: ReadonlyArray<ScopeTable> = [builtinScopes, new Map(builtinScopes), arbitraryScopes];

const NAMES = ['a', 'b', 'c'] as const;
const NAMESPACES = ['default', 'team'] as const;

const applicationOf = (
  name: string,
  namespace: string,
  spec: ApplicationSpec,
  status: ApplicationStatus | undefined,
): Application => ({
  apiVersion: 'kreconcile.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace, uid: `uid-${namespace}-${name}`, generation: 1, finalizers: [FINALIZER] },
  spec,
  ...(status === undefined ? {} : { status }),
});

/** The templates: manifests drawn from one pool of resources (so specs share single resources), some with hooks. */
const specsArbitrary: fc.Arbitrary<ReadonlyArray<ApplicationSpec>> = manifestArbitrary(4).chain((pool) =>
  fc.array(
    fc
      .tuple(fc.subarray([...pool], { minLength: 1 }), fc.boolean(), fc.boolean())
      .map(([manifest, hooked, adopt]): ApplicationSpec => ({
        manifest,
        ...(hooked ? { hooks: ['complete'] } : {}),
        ...(adopt ? { adopt: true } : {}),
      })),
    { minLength: 1, maxLength: 3 },
  ),
);

/** One call of `plan`: indices into the shared pieces. */
type Call = {
  readonly spec: number;
  readonly name: number;
  readonly namespace: number;
  /** Index of a converged world (its status and live list), or none: never planned, nothing live. */
  readonly world: number | undefined;
  readonly options: number;
  readonly scopes: number;
  /** Whether the live list is read (else the plan works from the status alone). */
  readonly readLive: boolean;
};

const callArbitrary = (specs: number, worlds: number): fc.Arbitrary<Call> =>
  fc.record({
    spec: fc.nat(specs - 1),
    name: fc.nat(NAMES.length - 1),
    namespace: fc.nat(NAMESPACES.length - 1),
    world: fc.option(fc.nat(worlds - 1), { nil: undefined }),
    options: fc.nat(OPTIONS.length - 1),
    scopes: fc.nat(SCOPES.length - 1),
    readLive: fc.boolean(),
  });

type World = { readonly status: ApplicationStatus; readonly live: ReadonlyArray<Resource> };

/**
 * A world an Application converged in (created its children, planned again), then perturbed by
 * another actor: its status and live list are what other Applications are then planned against.
 */
const worldOf = (call: Call, spec: ApplicationSpec): World => {
  const input = (status: ApplicationStatus | undefined, live: ReadonlyArray<Resource>): PlanInput => ({
    application: applicationOf(NAMES[call.name]!, NAMESPACES[call.namespace]!, spec, status),
    live,
    scopes: SCOPES[call.scopes]!,
    now: NOW,
    ...(OPTIONS[call.options] === undefined ? {} : { options: OPTIONS[call.options] }),
  });
  const first = plan(input(undefined, []));
  const live = execute([], first.actions, (body) => served(body));
  return { status: plan(input(first.status, live)).status, live };
};

const scenarioArbitrary = specsArbitrary.chain((specs) =>
  fc
    .array(fc.tuple(callArbitrary(specs.length, 1), liveEditsArbitrary(3)), { minLength: 1, maxLength: 2 })
    .chain((seeds) =>
      fc.record({
        specs: fc.constant(specs),
        seeds: fc.constant(seeds),
        calls: fc.array(callArbitrary(specs.length, seeds.length), { minLength: 2, maxLength: 6 }),
        order: fc.array(fc.nat(), { minLength: 2, maxLength: 12 }),
      }),
    ),
);

const worldsOf = (
  specs: ReadonlyArray<ApplicationSpec>,
  seeds: ReadonlyArray<readonly [Call, ReadonlyArray<LiveEdit>]>,
): ReadonlyArray<World> =>
  seeds.map(([call, edits]) => {
    const converged = worldOf(call, specs[call.spec]!);
    return { ...converged, live: converged.live.map((object) => applyLiveEdits(object, edits)) };
  });

/** The inputs of each call, built from the shared (frozen) pieces: sub-objects shared, not copied. */
const inputsOf = (specs: ReadonlyArray<ApplicationSpec>, worlds: ReadonlyArray<World>, calls: ReadonlyArray<Call>) =>
  calls.map((call): PlanInput => {
    const world = call.world === undefined ? undefined : worlds[call.world];
    return {
      application: applicationOf(NAMES[call.name]!, NAMESPACES[call.namespace]!, specs[call.spec]!, world?.status),
      ...(call.readLive ? { live: world?.live ?? [] } : {}),
      scopes: SCOPES[call.scopes]!,
      now: NOW,
      ...(OPTIONS[call.options] === undefined ? {} : { options: OPTIONS[call.options] }),
    };
  });

/** A deep copy: equal values, no identity shared with anything planned before. */
const copyOf = ({ scopes, ...rest }: PlanInput): PlanInput => ({ ...structuredClone(rest), scopes: new Map(scopes) });

describe('plan is a pure function', () => {
  it('a plan of shared objects, planned in any order with or without a memo, equals the plan of a deep copy alone', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ specs, seeds, calls, order }) => {
        const frozenSpecs = freeze(specs, true);
        const worlds = freeze(worldsOf(frozenSpecs, seeds), true);
        // Applications built once and reused: the same object planned again is what a memo recognises.
        const inputs = freeze(inputsOf(frozenSpecs, worlds, calls), true);
        const alone = inputs.map((input) => plan(copyOf(input)));
        const planner = createPlanner();
        const memo = createMemo();
        for (const pick of order) {
          const i = pick % inputs.length;
          const input = inputs[i]!;
          expect(planner.plan(input)).toEqual(alone[i]);
          expect(plan(input)).toEqual(alone[i]);
          // A memo passed by hand is the same as a planner's.
          expect(plan(input, memo)).toEqual(alone[i]);
        }
      }),
      RUNS,
    );
  });

  it('two Applications stamped from one template get their own hook Secrets (issue 18)', () => {
    const spec = freeze<ApplicationSpec>(
      {
        manifest: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } }],
        hooks: ['complete'],
      },
      true,
    );
    const options = freeze({ hooks: CONTEXT, tenancy: OPEN_TENANCY }, true);
    const planner = createPlanner();
    const secretsOf = (name: string, planWith: (input: PlanInput) => ReturnType<typeof plan>) =>
      planWith({
        application: applicationOf(name, 'default', spec, undefined),
        live: [],
        scopes: builtinScopes,
        now: NOW,
        options,
      })
        .actions.filter((action) => action.ref.kind === 'Secret')
        .map((action) => action.ref.name);
    for (const planWith of [(input: PlanInput) => plan(input), planner.plan]) {
      expect(secretsOf('a', planWith)).toEqual(['a.default.kreconcile-hooks']);
      expect(secretsOf('b', planWith)).toEqual(['b.default.kreconcile-hooks']);
    }
  });
});
