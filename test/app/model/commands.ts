/**
 * The commands both model-based tests share (Applications created, changed, deleted; another
 * actor editing children; faults switched): they act on the in-memory cluster and update the model.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as O from 'fp-ts/lib/Option.js';
import fc from 'fast-check';
import { faultProfiles, type ManualClock, type MemoryCluster } from '../../../adapters/memory/index.js';
import { drive } from '../../../app/testing/drive.js';
import { jsonEqual } from '../../../core/json/json.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, setIn, type Resource } from './helpers.js';
import {
  APP_NAMES,
  NAMESPACES,
  apiVersionOf,
  applicationOf,
  childrenArbitrary,
  observedFieldOf,
  type AppSpec,
  type Child,
} from './world.js';

/** `observedEdits`: how often another actor changed an observed field (the only thing a hot loop may come from). */
export type Model = {
  apps: Map<string, AppSpec>;
  annotations: Map<string, string>;
  touches: number;
  observedEdits?: number;
};
/** What the shared commands need of the system under test. */
export type World = { cluster: MemoryCluster; clock: ManualClock };

export const appRef = (namespace: string, name: string) => ({
  apiVersion: APPLICATION_API_VERSION,
  kind: APPLICATION_KIND,
  namespace,
  name,
});

/**
 * A write that answered with an error may still have happened (faults are injected before or
 * after the commit, as with a timeout): read the object back until a read succeeds (while the API
 * server is down, as a user would: a second later).
 */
export const truth = async (
  r: World,
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
): Promise<Resource | undefined> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = await drive(r.clock, r.cluster.get(ref)());
    if (E.isRight(read)) return O.isSome(read.right) ? read.right.value : undefined;
    if (read.left._tag === 'Unavailable' && read.left.code === 0) await r.clock.advance(1_000);
  }
  throw new Error(`cannot read ${ref.kind} ${ref.namespace}/${ref.name} back`);
};

export class CreateApp<R extends World = World> implements fc.AsyncCommand<Model, R> {
  constructor(readonly spec: AppSpec) {}
  check = (m: Readonly<Model>) => !m.apps.has(`${this.spec.namespace}/${this.spec.name}`);
  async run(m: Model, r: R) {
    const created = await drive(r.clock, r.cluster.create(applicationOf(this.spec))());
    // An ambiguous failure may have created it; an AlreadyExists may also mean that an earlier
    // Application of this name is still terminating (held by its finalizer): only ours counts.
    const stored = E.isRight(created) ? created.right : await truth(r, appRef(this.spec.namespace, this.spec.name));
    const ours =
      stored !== undefined &&
      stored.metadata.deletionTimestamp === undefined &&
      jsonEqual(stored.spec, applicationOf(this.spec).spec);
    if (ours) m.apps.set(`${this.spec.namespace}/${this.spec.name}`, this.spec);
  }
  toString = () => `create ${this.spec.namespace}/${this.spec.name} ${JSON.stringify(this.spec.children)}`;
}

export class UpdateApp<R extends World = World> implements fc.AsyncCommand<Model, R> {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly children: ReadonlyArray<Child>,
  ) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: R) {
    const current = await drive(r.clock, r.cluster.get(appRef(this.namespace, this.name))());
    if (E.isLeft(current) || O.isNone(current.right) || current.right.value.metadata.deletionTimestamp) return;
    const spec = { namespace: this.namespace, name: this.name, children: this.children };
    const updated = await drive(
      r.clock,
      r.cluster.update({
        ...current.right.value,
        spec: (applicationOf(spec) as unknown as { spec: Resource }).spec,
      })(),
    );
    const stored = E.isRight(updated) ? updated.right : await truth(r, appRef(this.namespace, this.name));
    if (stored !== undefined && jsonEqual(stored.spec, applicationOf(spec).spec)) {
      const before = m.apps.get(`${this.namespace}/${this.name}`);
      for (const child of before?.children ?? [])
        if (!this.children.some((c) => c.kind === child.kind && c.name === child.name))
          m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      m.apps.set(`${this.namespace}/${this.name}`, spec);
    }
  }
  toString = () => `update ${this.namespace}/${this.name} ${JSON.stringify(this.children)}`;
}

export class DeleteApp<R extends World = World> implements fc.AsyncCommand<Model, R> {
  constructor(
    readonly namespace: string,
    readonly name: string,
  ) {}
  check = (m: Readonly<Model>) => m.apps.has(`${this.namespace}/${this.name}`);
  async run(m: Model, r: R) {
    const deleted = await drive(r.clock, r.cluster.delete(appRef(this.namespace, this.name))());
    const after =
      E.isRight(deleted) || deleted.left._tag === 'NotFound'
        ? undefined
        : await truth(r, appRef(this.namespace, this.name));
    if (
      E.isRight(deleted) ||
      deleted.left._tag === 'NotFound' ||
      after === undefined ||
      after.metadata.deletionTimestamp !== undefined
    ) {
      for (const child of m.apps.get(`${this.namespace}/${this.name}`)?.children ?? [])
        m.annotations.delete(`${child.kind}/${this.namespace}/${child.name}`);
      m.apps.delete(`${this.namespace}/${this.name}`);
    }
  }
  toString = () => `delete ${this.namespace}/${this.name}`;
}

/** Another actor edits a child: an observed field (to be reverted) or a new annotation (to stand). */
export class EditChild<R extends World = World> implements fc.AsyncCommand<Model, R> {
  constructor(
    readonly pick: number,
    readonly observed: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.apps.size > 0;
  async run(m: Model, r: R) {
    const apps = [...m.apps.values()];
    const spec = apps[this.pick % apps.length] as AppSpec;
    const child = spec.children[this.pick % spec.children.length] as Child;
    const current = await drive(
      r.clock,
      r.cluster.get({
        apiVersion: apiVersionOf(child.kind),
        kind: child.kind,
        namespace: spec.namespace,
        name: child.name,
      })(),
    );
    if (E.isLeft(current) || O.isNone(current.right)) return;
    const live = current.right.value;
    const touch = `t${++m.touches}`;
    const edited = this.observed
      ? setIn(live, observedFieldOf(child).path, observedFieldOf(child).value)
      : setIn(live, ['metadata', 'annotations', 'other.example/touched'], touch);
    const updated = await drive(r.clock, r.cluster.update(edited as Resource)());
    if (this.observed) {
      m.observedEdits = (m.observedEdits ?? 0) + 1;
      return;
    }
    const stored = E.isRight(updated)
      ? updated.right
      : await truth(r, {
          apiVersion: apiVersionOf(child.kind),
          kind: child.kind,
          namespace: spec.namespace,
          name: child.name,
        });
    if (stored?.metadata.annotations?.['other.example/touched'] === touch)
      m.annotations.set(`${child.kind}/${spec.namespace}/${child.name}`, touch);
  }
  toString = () => `edit child #${this.pick} (${this.observed ? 'observed' : 'non-observed'})`;
}

export class SetFaults<R extends World = World> implements fc.AsyncCommand<Model, R> {
  constructor(readonly profile: 'none' | 'flaky' | 'chaos') {}
  check = () => true;
  async run(_m: Model, r: R) {
    r.cluster.setFaults(faultProfiles[this.profile]);
  }
  toString = () => `faults ${this.profile}`;
}

export const specArbitrary: fc.Arbitrary<AppSpec> = fc
  .tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...APP_NAMES))
  .chain(([namespace, name]) => childrenArbitrary(name).map((children) => ({ namespace, name, children })));
