/** The example scenarios every golden test covers, with what docs/behaviour.md says each plan must contain. */

export const NOW = '2026-03-02T12:00:00Z';

export type Example = 'webapp' | 'song-artist' | 'list-control';

export type Scenario = {
  readonly example: Example;
  readonly name: string;
  /** Snapshot file under examples/<example>/snapshots, none for an empty cluster. */
  readonly snapshot?: string;
  /** Expected counts (docs/behaviour.md §4.6) and the outcome for `--exit-code`. */
  readonly expect: {
    readonly create: number;
    readonly patch: number;
    readonly delete: number;
    readonly conflict: number;
    readonly result: 'NoChanges' | 'Changes' | 'Stalled';
  };
};

const SCENARIOS_OF: Readonly<Record<Example, ReadonlyArray<Omit<Scenario, 'example'>>>> = {
  webapp: [
    { name: 'create-from-empty', expect: { create: 4, patch: 0, delete: 0, conflict: 0, result: 'Changes' } },
    {
      name: 'in-sync',
      snapshot: 'in-sync',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'drifted-observed',
      snapshot: 'drifted-observed',
      expect: { create: 0, patch: 2, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'drifted-unobserved',
      snapshot: 'drifted-unobserved',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'list-too-long',
      snapshot: 'list-too-long',
      expect: { create: 0, patch: 1, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'removed-from-spec',
      snapshot: 'removed-from-spec',
      expect: { create: 0, patch: 0, delete: 1, conflict: 0, result: 'Changes' },
    },
    {
      name: 'foreign-object',
      snapshot: 'foreign-object',
      expect: { create: 3, patch: 0, delete: 0, conflict: 1, result: 'Stalled' },
    },
  ],
  'song-artist': [
    { name: 'create-from-empty', expect: { create: 2, patch: 0, delete: 0, conflict: 0, result: 'Changes' } },
    {
      name: 'in-sync',
      snapshot: 'in-sync',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'drifted-observed',
      snapshot: 'drifted-observed',
      expect: { create: 0, patch: 1, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'drifted-unobserved',
      snapshot: 'drifted-unobserved',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'list-too-long',
      snapshot: 'list-too-long',
      expect: { create: 0, patch: 1, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'removed-from-spec',
      snapshot: 'removed-from-spec',
      expect: { create: 0, patch: 0, delete: 1, conflict: 0, result: 'Changes' },
    },
    {
      name: 'foreign-object',
      snapshot: 'foreign-object',
      expect: { create: 1, patch: 0, delete: 0, conflict: 1, result: 'Stalled' },
    },
  ],
  'list-control': [
    { name: 'create-from-empty', expect: { create: 2, patch: 0, delete: 0, conflict: 0, result: 'Changes' } },
    {
      name: 'in-sync',
      snapshot: 'in-sync',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'drifted-observed',
      snapshot: 'drifted-observed',
      expect: { create: 0, patch: 1, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'drifted-unobserved',
      snapshot: 'drifted-unobserved',
      expect: { create: 0, patch: 0, delete: 0, conflict: 0, result: 'NoChanges' },
    },
    {
      name: 'list-too-long',
      snapshot: 'list-too-long',
      expect: { create: 0, patch: 1, delete: 0, conflict: 0, result: 'Changes' },
    },
    {
      name: 'removed-from-spec',
      snapshot: 'removed-from-spec',
      expect: { create: 0, patch: 0, delete: 1, conflict: 0, result: 'Changes' },
    },
    {
      name: 'foreign-object',
      snapshot: 'foreign-object',
      expect: { create: 1, patch: 0, delete: 0, conflict: 1, result: 'Stalled' },
    },
  ],
};

export const SCENARIOS: ReadonlyArray<Scenario> = (Object.keys(SCENARIOS_OF) as Example[]).flatMap((example) =>
  SCENARIOS_OF[example].map((scenario) => ({ example, ...scenario })),
);

/** The `-f` arguments of an example (the Song/Artist CRDs come with it). */
export const filesOf = (example: Example): ReadonlyArray<string> =>
  example === 'song-artist'
    ? ['-f', 'examples/song-artist/app.yaml', '-f', 'examples/song-artist/crds.yaml']
    : ['-f', `examples/${example}/app.yaml`];

export const snapshotPath = (scenario: Scenario): string | undefined =>
  scenario.snapshot === undefined ? undefined : `examples/${scenario.example}/snapshots/${scenario.snapshot}.yaml`;

/** The `kreconcile plan` arguments of a scenario (without -o). */
export const planArgs = (scenario: Scenario): ReadonlyArray<string> => {
  const snapshot = snapshotPath(scenario);
  return [
    'plan',
    ...filesOf(scenario.example),
    ...(snapshot === undefined ? [] : ['--snapshot', snapshot]),
    '--now',
    NOW,
  ];
};
