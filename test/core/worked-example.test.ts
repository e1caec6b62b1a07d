/**
 * The reference text's worked example (Krake's "Reconciliation loop"): a Song with a custom
 * observer schema and an Artist with a default one, mangled by a hook; every step's state asserted.
 */
import { describe, it, expect } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  calculateResourceDelta,
  generateDefaultObserverSchema,
  plan,
  updateLastAppliedManifestFromResponse,
  updateLastAppliedManifestFromSpec,
  updateLastObservedManifestFromResponse,
  validateObserverSchema,
  type JsonObject,
  type ObserverSchema,
  type Resource,
} from '../../core/internal.js';
import { APP_UID, actionsOf, application, scopes, served } from './fixtures.js';

const control = (min: number, max: number) => ({
  observer_schema_list_min_length: min,
  observer_schema_list_max_length: max,
});

const song: Resource = {
  apiVersion: 'music.example/v1',
  kind: 'Song',
  metadata: { name: 'nightingale' },
  spec: { key1: 'value1', key2: 'value2' },
};

const artist: Resource = {
  apiVersion: 'music.example/v1',
  kind: 'Artist',
  metadata: { name: 'ella' },
  spec: { name: 'Ella Fitzgerald', albums: [{ title: 'Ella and Louis', year: 1956 }] },
};

/** key1 observed and set; key2 set, not observed; key3 observed, not set; only rythms[0] observed. */
const songSchema: ObserverSchema = {
  apiVersion: 'music.example/v1',
  kind: 'Song',
  metadata: { name: 'nightingale' },
  spec: { key1: null, key3: null, rythms: [null, control(1, 2)] },
};

const manifest = [song, artist];

const artistDefaultSchema: ObserverSchema = {
  apiVersion: 'music.example/v1',
  kind: 'Artist',
  metadata: { name: 'ella' },
  spec: { name: null, albums: [{ title: null, year: null }, control(1, 1)] },
};

/** Step 3, a hook in miniature: adds `spec.nickname` to the Artist's desired state and schema. */
const mangle = (
  desired: ReadonlyArray<Resource>,
  schemas: ReadonlyArray<ObserverSchema>,
): { readonly desired: ReadonlyArray<Resource>; readonly schemas: ReadonlyArray<ObserverSchema> } => {
  const withNickname = <T extends Resource>(resource: T, value: string | null): T =>
    resource.kind === 'Artist' ? { ...resource, spec: { ...(resource.spec as object), nickname: value } } : resource;
  return {
    desired: desired.map((r) => withNickname(r, 'Lady Ella')),
    schemas: schemas.map((s) => withNickname(s, null)),
  };
};

const inDefault = (resource: Resource): Resource => ({
  ...resource,
  metadata: { ...resource.metadata, namespace: 'default' },
});

const ownerMarks = {
  labels: { 'app.kubernetes.io/managed-by': 'kreconcile' },
  annotations: { 'kreconcile.io/owner': 'default/app' },
  ownerReferences: [
    {
      apiVersion: 'kreconcile.io/v1alpha1',
      kind: 'Application',
      name: 'app',
      uid: APP_UID,
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
};

// The states every step produces, shared by the steps that consume them.
const mangledSchema: ReadonlyArray<ObserverSchema> = [
  songSchema,
  { ...artistDefaultSchema, spec: { ...(artistDefaultSchema.spec as object), nickname: null } },
];
const artistMangled: Resource = { ...artist, spec: { ...(artist.spec as object), nickname: 'Lady Ella' } };
const lastAppliedAfterStep5 = [inDefault(song), inDefault(artistMangled)];

const songResponse: Resource = {
  ...served({ ...inDefault(song), metadata: { ...inDefault(song).metadata, ...ownerMarks } }, 1),
  spec: { key1: 'value1', key2: 'value2', key3: 'set-by-the-cluster', rythms: ['waltz', 'tango'] },
};
const artistResponse: Resource = served(
  { ...inDefault(artistMangled), metadata: { ...inDefault(artistMangled).metadata, ...ownerMarks } },
  2,
);

const songLearned: Resource = {
  ...inDefault(song),
  spec: { key1: 'value1', key2: 'value2', key3: 'set-by-the-cluster', rythms: ['waltz'] },
};

const songObserved: JsonObject = {
  apiVersion: 'music.example/v1',
  kind: 'Song',
  metadata: { name: 'nightingale', namespace: 'default' },
  spec: { key1: 'value1', key3: 'set-by-the-cluster', rythms: ['waltz', { observer_schema_list_current_length: 2 }] },
};
const artistObserved: JsonObject = {
  apiVersion: 'music.example/v1',
  kind: 'Artist',
  metadata: { name: 'ella', namespace: 'default' },
  spec: {
    name: 'Ella Fitzgerald',
    albums: [{ title: 'Ella and Louis', year: 1956 }, { observer_schema_list_current_length: 1 }],
    nickname: 'Lady Ella',
  },
};

/** The Application as a hook-aware caller hands it to `plan`: the spec after mangling. */
const mangledSpec = { manifest: [song, artistMangled], observerSchema: [...mangledSchema] };

describe('worked example (reference text): Song with a custom schema, Artist with a default one', () => {
  it('Step 1: the custom schema validates; a default schema is generated for the Artist only', () => {
    expect(validateObserverSchema({ manifest, observerSchema: [songSchema] })).toEqual(E.right([songSchema]));
    expect(generateDefaultObserverSchema({ manifest, observerSchema: [songSchema] })).toEqual([
      songSchema,
      artistDefaultSchema,
    ]);
  });

  it('Step 2: lastAppliedManifest starts as a copy of spec.manifest (key2 copied, key3 unknown)', () => {
    const lastApplied = updateLastAppliedManifestFromSpec({
      manifest,
      mangledObserverSchema: [songSchema, artistDefaultSchema],
      lastAppliedManifest: undefined,
    });
    expect(lastApplied).toEqual([
      {
        apiVersion: 'music.example/v1',
        kind: 'Song',
        metadata: { name: 'nightingale' },
        spec: { key1: 'value1', key2: 'value2' },
      },
      {
        apiVersion: 'music.example/v1',
        kind: 'Artist',
        metadata: { name: 'ella' },
        spec: { name: 'Ella Fitzgerald', albums: [{ title: 'Ella and Louis', year: 1956 }] },
      },
    ]);
  });

  it('Step 3: mangling adds spec.nickname to the Artist in desired state and schema', () => {
    const mangled = mangle(manifest, [songSchema, artistDefaultSchema]);
    expect(mangled.desired).toEqual([song, artistMangled]);
    expect(mangled.schemas).toEqual(mangledSchema);
    expect((mangled.schemas[1]?.spec as Record<string, unknown>).nickname).toBeNull();
  });

  it('Step 4: on the first reconcile the current state is empty, every resource is new', () => {
    const delta = calculateResourceDelta({
      lastAppliedManifest: [song, artistMangled],
      lastObservedManifest: [],
      mangledObserverSchema: mangledSchema,
    });
    expect(delta).toEqual({ new: [song, artistMangled], modified: [], deleted: [] });
  });

  it('Step 5: plan against an empty cluster creates the whole desired resources, with ownership marks', () => {
    const result = plan({ application: application(mangledSpec, { finalizer: false }), live: [], scopes, now: 't5' });
    expect(result.actions.map((action) => action.type)).toEqual(['addFinalizer', 'create', 'create']);
    expect(actionsOf(result, 'create')).toEqual([
      {
        type: 'create',
        ref: { apiVersion: 'music.example/v1', kind: 'Song', namespace: 'default', name: 'nightingale' },
        body: {
          apiVersion: 'music.example/v1',
          kind: 'Song',
          metadata: { name: 'nightingale', namespace: 'default', ...ownerMarks },
          spec: { key1: 'value1', key2: 'value2' }, // key2 is not observed, yet sent on create
        },
        changes: [],
      },
      {
        type: 'create',
        ref: { apiVersion: 'music.example/v1', kind: 'Artist', namespace: 'default', name: 'ella' },
        body: {
          apiVersion: 'music.example/v1',
          kind: 'Artist',
          metadata: { name: 'ella', namespace: 'default', ...ownerMarks },
          spec: { name: 'Ella Fitzgerald', albums: [{ title: 'Ella and Louis', year: 1956 }], nickname: 'Lady Ella' },
        },
        changes: [],
      },
    ]);
    expect(result.summary).toEqual({ create: 2, patch: 0, delete: 0, conflict: 0 });
    expect(result.status.mangledObserverSchema).toEqual(mangledSchema);
    expect(result.status.lastAppliedManifest).toEqual(lastAppliedAfterStep5);
    expect(result.status.lastObservedManifest).toEqual([]);
    expect(result.status.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Ready', 'False', 't5'],
      ['Reconciling', 'True', 't5'],
      ['Stalled', 'False', 't5'],
    ]);
    expect(result.outcome).toEqual({ _tag: 'RequeueAfter', ms: 1000, reason: 'VerifyActions' });
  });

  it('Step 6: the response fills key3 and the first rythm; the second rythm is not saved', () => {
    const afterSong = updateLastAppliedManifestFromResponse({
      lastAppliedManifest: lastAppliedAfterStep5,
      mangledObserverSchema: mangledSchema,
      response: songResponse,
    });
    expect(afterSong).toEqual([songLearned, inDefault(artistMangled)]);
    const afterArtist = updateLastAppliedManifestFromResponse({
      lastAppliedManifest: afterSong,
      mangledObserverSchema: mangledSchema,
      response: artistResponse,
    });
    expect(afterArtist).toEqual([songLearned, inDefault(artistMangled)]);
  });

  it('Step 6: key1 keeps the user value when the response differs; a null key3 stays unknown', () => {
    const response = {
      ...songResponse,
      spec: { key1: 'changed-by-the-cluster', key2: 'other', key3: null, rythms: ['waltz'] },
    };
    const learned = updateLastAppliedManifestFromResponse({
      lastAppliedManifest: lastAppliedAfterStep5,
      mangledObserverSchema: mangledSchema,
      response,
    });
    expect(learned[0]).toEqual({ ...inDefault(song), spec: { key1: 'value1', key2: 'value2', rythms: ['waltz'] } });
  });

  it('Step 7: lastObservedManifest holds the observed fields of the responses and list lengths', () => {
    const afterSong = updateLastObservedManifestFromResponse({
      lastObservedManifest: [],
      mangledObserverSchema: mangledSchema,
      response: songResponse,
    });
    expect(afterSong).toEqual([songObserved]);
    const afterArtist = updateLastObservedManifestFromResponse({
      lastObservedManifest: afterSong,
      mangledObserverSchema: mangledSchema,
      response: artistResponse,
    });
    expect(afterArtist).toEqual([songObserved, artistObserved]);
  });

  it('second reconcile, Step 2: learned key3 and rythm kept, a new spec value for key1 wins', () => {
    const manifestNext = [{ ...song, spec: { key1: 'value1-v2', key2: 'value2' } }, artistMangled];
    const lastApplied = updateLastAppliedManifestFromSpec({
      manifest: manifestNext,
      mangledObserverSchema: mangledSchema,
      lastAppliedManifest: [songLearned, inDefault(artistMangled)],
    });
    expect(lastApplied).toEqual([
      { ...song, spec: { key1: 'value1-v2', key2: 'value2', key3: 'set-by-the-cluster', rythms: ['waltz'] } },
      artistMangled,
    ]);
  });

  it('second reconcile, Step 4: nothing differs on observed fields', () => {
    const delta = calculateResourceDelta({
      lastAppliedManifest: [songLearned, inDefault(artistMangled)],
      lastObservedManifest: [songObserved, artistObserved],
      mangledObserverSchema: mangledSchema,
    });
    expect(delta).toEqual({ new: [], modified: [], deleted: [] });
  });

  it('second reconcile: plan against the responses has no actions and reports Ready', () => {
    const first = plan({ application: application(mangledSpec, { finalizer: false }), live: [], scopes, now: 't5' });
    const status = {
      ...first.status,
      lastAppliedManifest: [songLearned, inDefault(artistMangled)],
      lastObservedManifest: [songObserved, artistObserved],
    };
    const result = plan({
      application: application(mangledSpec, { status }),
      live: [songResponse, artistResponse],
      scopes,
      now: 't8',
    });
    expect(result.actions).toEqual([]);
    expect(result.outcome).toEqual({ _tag: 'AwaitChange' });
    expect(result.status.lastAppliedManifest).toEqual([songLearned, inDefault(artistMangled)]);
    expect(result.status.lastObservedManifest).toEqual([songObserved, artistObserved]);
    expect(result.status.conditions).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Reconciled',
        message: '2 resources match the desired state',
        lastTransitionTime: 't8',
        observedGeneration: 1,
      },
      {
        type: 'Reconciling',
        status: 'False',
        reason: 'Reconciled',
        message: '',
        lastTransitionTime: 't8',
        observedGeneration: 1,
      },
      {
        type: 'Stalled',
        status: 'False',
        reason: 'Reconciled',
        message: '',
        lastTransitionTime: 't5',
        observedGeneration: 1,
      },
    ]);
  });

  it('second reconcile from the live objects alone (no learned status) learns the same state', () => {
    const result = plan({
      application: application(mangledSpec),
      live: [songResponse, artistResponse],
      scopes,
      now: 't8',
    });
    expect(result.actions).toEqual([]);
    expect(result.status.lastAppliedManifest).toEqual([songLearned, inDefault(artistMangled)]);
    expect(result.status.lastObservedManifest).toEqual([songObserved, artistObserved]);
  });

  it('drift of key1 (and of the non-observed key2) is patched on key1 only, never key2', () => {
    const drifted = {
      ...songResponse,
      spec: { ...(songResponse.spec as object), key1: 'tampered', key2: 'tampered-too' },
    };
    const result = plan({ application: application(mangledSpec), live: [drifted, artistResponse], scopes, now: 't9' });
    expect(result.actions).toEqual([
      {
        type: 'patch',
        ref: { apiVersion: 'music.example/v1', kind: 'Song', namespace: 'default', name: 'nightingale' },
        patch: [{ op: 'replace', path: '/spec/key1', value: 'value1' }],
        changes: [{ path: 'spec.key1', from: 'tampered', to: 'value1' }],
      },
    ]);
    expect(JSON.stringify(result.actions)).not.toContain('key2');
    expect(result.status.conditions?.find((c) => c.type === 'Reconciling')?.status).toBe('True');
  });
});
