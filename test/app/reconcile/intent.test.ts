/**
 * Recording the kinds a reconcile is about to create (docs/behaviour.md §5), on the memory cluster:
 * a new Application's kinds ride on the finalizer's metadata patch (annotation
 * `kreconcile.io/intent-kinds`), a kind added later is recorded by a status write before its first
 * create, and a tenant's annotation only widens what is read, never what is deleted.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import { describe, expect, it } from 'vitest';
import { ManualClock, createMemoryCluster, type MemoryCluster } from '../../../adapters/memory/index.js';
import { INTENT_KINDS_ANNOTATION, MAX_INTENT_KINDS, intentKindsOf } from '../../../app/reconcile/intent-kinds.js';
import {
  reconcileApplication,
  type ReconcileDeps,
  type ReconcileResult,
} from '../../../app/reconcile/reconcile-application.js';
import {
  APPLICATION_API_VERSION,
  APPLICATION_KIND,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  OWNER_ANNOTATION,
  builtinScopes,
  type Cluster,
  type Patch,
  type Resource,
} from '../../../core/internal.js';
import { applicationOf, type Child } from '../model/world.js';

const ref = { apiVersion: APPLICATION_API_VERSION, kind: APPLICATION_KIND, namespace: 'default', name: 'shop' };

/** Every write the reconcile sends, in order, as `verb Kind/name` (a patch of the Application with its type). */
const recording = (cluster: MemoryCluster, writes: string[]): Cluster => ({
  ...cluster,
  create: (object, options) => {
    writes.push(`create ${object.kind}/${object.metadata.name}`);
    return cluster.create(object, options);
  },
  patch: (target, patch, options) => {
    writes.push(`patch ${target.kind}/${target.name} (${patch.type})`);
    return cluster.patch(target, patch, options);
  },
  patchStatus: (target, patch) => {
    writes.push(`status ${target.kind}/${target.name}`);
    return cluster.patchStatus(target, patch);
  },
  delete: (target, options) => {
    writes.push(`delete ${target.kind}/${target.name}`);
    return cluster.delete(target, options);
  },
});

const setup = (): { readonly cluster: MemoryCluster; readonly deps: ReconcileDeps; readonly writes: string[] } => {
  const clock = new ManualClock();
  const cluster = createMemoryCluster({ clock, seed: 3 });
  const writes: string[] = [];
  const deps: ReconcileDeps = {
    cluster: recording(cluster, writes),
    scopes: builtinScopes,
    now: () => new Date(clock.now()).toISOString(),
    random: () => 0.5,
    planOptions: { readiness: 'existence' },
  };
  return { cluster, deps, writes };
};

const stored = async (cluster: MemoryCluster, target = ref): Promise<Resource> => {
  const read = await cluster.get(target)();
  if (E.isLeft(read) || O.isNone(read.right)) throw new Error(`${target.kind} ${target.name} is gone`);
  return read.right.value;
};

/**
 * `deps.cluster` whose patches of the Application first let another writer change the stored
 * Application's metadata (`edit`): a concurrent edit landing while our patch is on its way.
 */
const editedBeforeItsPatch = (
  cluster: MemoryCluster,
  deps: ReconcileDeps,
  edit: (metadata: Resource['metadata']) => Resource['metadata'],
): Cluster => ({
  ...deps.cluster,
  patch: (target, patch: Patch, options) => async () => {
    if (target.kind === APPLICATION_KIND) {
      const current = await stored(cluster);
      await cluster.update({ ...current, metadata: edit(current.metadata) })();
    }
    return deps.cluster.patch(target, patch, options)();
  },
});

const done = (result: ReconcileResult): Extract<ReconcileResult, { _tag: 'Done' }> => {
  if (result._tag !== 'Done') throw new Error(`expected Done, got ${JSON.stringify(result)}`);
  return result;
};

const shop = (children: ReadonlyArray<Child>, annotations?: Record<string, string>): Resource => {
  const application = applicationOf({ namespace: 'default', name: 'shop', children });
  return annotations === undefined
    ? application
    : { ...application, metadata: { ...application.metadata, annotations } };
};

const config: Child = { kind: 'ConfigMap', name: 'shop-config', data: { mode: 'a' } };
const web: Child = { kind: 'Service', name: 'shop-web', port: 80 };
const deployment: Child = { kind: 'Deployment', name: 'shop-app', replicas: 2, image: 'nginx:1.27' };

/** Rewrites the spec of the stored Application (a user's edit). */
const edit = async (cluster: MemoryCluster, children: ReadonlyArray<Child>): Promise<void> => {
  const current = await stored(cluster);
  const updated = await cluster.update({ ...current, spec: shop(children).spec } as Resource)();
  if (E.isLeft(updated)) throw new Error(updated.left.message);
};

describe('recording the kinds a reconcile creates', () => {
  it('a new Application: the finalizer patch names the kinds, then the creates, then one status write', async () => {
    const { cluster, deps, writes } = setup();
    await cluster.create(shop([config, web], { team: 'blue' }))();
    done(await reconcileApplication(ref, deps));
    expect(writes).toEqual([
      'patch Application/shop (merge)',
      'create ConfigMap/shop-config',
      'create Service/shop-web',
      'status Application/shop',
    ]);
    const application = await stored(cluster);
    expect(application.metadata.finalizers).toEqual(['kreconcile.io/cleanup']);
    expect(intentKindsOf(application)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Service' },
    ]);
    // The user's annotations are kept; the generation is the spec's, not moved by the metadata patch.
    expect(application.metadata.annotations?.team).toBe('blue');
    expect(application.metadata.generation).toBe(1);
  });

  it('a kind added once the finalizer is there: the status records it before its first create', async () => {
    const { cluster, deps, writes } = setup();
    await cluster.create(shop([config]))();
    done(await reconcileApplication(ref, deps));
    await edit(cluster, [config, deployment]);
    writes.length = 0;
    done(await reconcileApplication(ref, deps));
    expect(writes).toEqual(['status Application/shop', 'create Deployment/shop-app', 'status Application/shop']);
    // A kind the status or the annotation names already is not recorded again.
    await edit(cluster, [config, deployment, { ...config, name: 'shop-flags' }]);
    writes.length = 0;
    done(await reconcileApplication(ref, deps));
    expect(writes).toEqual(['create ConfigMap/shop-flags', 'status Application/shop']);
  });

  it('kinds that would not fit the annotation are recorded in the status before the creates, as before', async () => {
    const { cluster, deps, writes } = setup();
    const full = JSON.stringify(
      Array.from({ length: MAX_INTENT_KINDS }, (_, i) => ({ apiVersion: 'example.com/v1', kind: `Kind${i}` })),
    );
    await cluster.create(shop([config], { [INTENT_KINDS_ANNOTATION]: full }))();
    done(await reconcileApplication(ref, deps));
    expect(writes).toEqual([
      'status Application/shop',
      'patch Application/shop (json)',
      'create ConfigMap/shop-config',
      'status Application/shop',
    ]);
    expect((await stored(cluster)).metadata.annotations?.[INTENT_KINDS_ANNOTATION]).toBe(full);
  });

  it('annotations added while the finalizer patch is on its way are kept (merged, not replaced)', async () => {
    const { cluster, deps } = setup();
    await cluster.create(shop([config]))();
    const racing = editedBeforeItsPatch(cluster, deps, (metadata) => ({ ...metadata, annotations: { team: 'red' } }));
    done(await reconcileApplication(ref, { ...deps, cluster: racing }));
    const application = await stored(cluster);
    expect(application.metadata.annotations?.team).toBe('red');
    expect(intentKindsOf(application)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap' }]);
  });

  it("with another controller's finalizer and no annotations, a concurrent edit fails the guard: retried, not Stalled", async () => {
    const { cluster, deps, writes } = setup();
    const foreign = shop([config]);
    await cluster.create({ ...foreign, metadata: { ...foreign.metadata, finalizers: ['example.com/keep'] } })();
    const racing = editedBeforeItsPatch(cluster, deps, (metadata) => ({ ...metadata, labels: { tier: 'web' } }));
    const raced = await reconcileApplication(ref, { ...deps, cluster: racing });
    expect(raced._tag).toBe('Failed');
    expect(raced._tag === 'Failed' && raced.terminal).toBe(false);
    expect(writes.filter((write) => write.startsWith('create'))).toEqual([]);
    // The failed reconcile's status names the desired ConfigMap (as a failed first create leaves it):
    // the next reconcile has no kind to record, and adds the finalizer with a JSON Patch that keeps the other.
    writes.length = 0;
    done(await reconcileApplication(ref, deps));
    expect(writes).toEqual([
      'patch Application/shop (json)',
      'create ConfigMap/shop-config',
      'status Application/shop',
    ]);
    const application = await stored(cluster);
    expect(application.metadata.finalizers).toEqual(['example.com/keep', 'kreconcile.io/cleanup']);
    expect(application.metadata.labels).toEqual({ tier: 'web' });
    expect(application.metadata.annotations).toBeUndefined();
  });
  it("with another controller's finalizer: a JSON Patch keeps it, the kinds join the annotations there are (or start them)", async () => {
    for (const annotations of [undefined, { team: 'blue' }]) {
      const { cluster, deps, writes } = setup();
      const foreign = shop([config], annotations);
      await cluster.create({ ...foreign, metadata: { ...foreign.metadata, finalizers: ['example.com/keep'] } })();
      done(await reconcileApplication(ref, deps));
      expect(writes).toEqual([
        'patch Application/shop (json)',
        'create ConfigMap/shop-config',
        'status Application/shop',
      ]);
      const application = await stored(cluster);
      expect(application.metadata.finalizers).toEqual(['example.com/keep', 'kreconcile.io/cleanup']);
      expect(application.metadata.annotations?.team).toBe(annotations?.team);
      expect(intentKindsOf(application)).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap' }]);
    }
  });

  it('a finalizer list changed while the patch is on its way fails its guard: retried, not Stalled InvalidSpec', async () => {
    const { cluster, deps } = setup();
    const foreign = shop([config], { team: 'blue' });
    await cluster.create({ ...foreign, metadata: { ...foreign.metadata, finalizers: ['example.com/keep'] } })();
    const racing = editedBeforeItsPatch(cluster, deps, (metadata) => ({
      ...metadata,
      finalizers: ['example.com/other'],
    }));
    const raced = await reconcileApplication(ref, { ...deps, cluster: racing });
    expect(raced._tag === 'Failed' && { terminal: raced.terminal, error: raced.error._tag }).toEqual({
      terminal: false,
      error: 'Invalid',
    });
    done(await reconcileApplication(ref, deps));
    expect((await stored(cluster)).metadata.finalizers).toEqual(['example.com/other', 'kreconcile.io/cleanup']);
  });
});

describe("a tenant's kreconcile.io/intent-kinds", () => {
  const marked = (name: string, owner: string): Resource => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'default',
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
      annotations: { [OWNER_ANNOTATION]: owner },
    },
    data: { a: 'b' },
  });

  it('widens what is read, never what is deleted: only objects carrying our marks are pruned', async () => {
    const { cluster, deps, writes } = setup();
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stranger', namespace: 'default' },
    })();
    await cluster.create(marked('theirs', 'default/other'))();
    await cluster.create(marked('left-over', 'default/shop'))();
    const hostile = JSON.stringify([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'v1', kind: 'Pod', extra: 'x'.repeat(100) },
      'junk',
    ]);
    await cluster.create(shop([web], { [INTENT_KINDS_ANNOTATION]: hostile }))();
    done(await reconcileApplication(ref, deps));
    done(await reconcileApplication(ref, deps));
    // The child of ours of a kind only the annotation names is pruned; the others are not touched.
    expect(writes.filter((write) => write.startsWith('delete'))).toEqual(['delete ConfigMap/left-over']);
    const names = cluster
      .objects()
      .filter((object) => object.kind === 'ConfigMap')
      .map((object) => object.metadata.name)
      .sort();
    expect(names).toEqual(['stranger', 'theirs']);
  });

  it('that does not decode is ignored: the Application converges as without it, and its kinds are recorded beside', async () => {
    const { cluster, deps } = setup();
    await cluster.create(shop([config], { [INTENT_KINDS_ANNOTATION]: '{"not": "a list"' }))();
    const first = done(await reconcileApplication(ref, deps));
    expect(first.plan.actions.map((action) => action.type)).toEqual(['addFinalizer', 'create']);
    expect(intentKindsOf(await stored(cluster))).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap' }]);
  });
});
