/**
 * `spec.dependsOn` in the runtime: which primaries depend on which (an index built from the
 * primary store's objects as they arrive), the read-only view of the other primaries every plan
 * is given (core/plan/depends-on.ts), and the requeues that end the waits without polling:
 *
 * - a primary turning Ready (for its current generation), appearing, going away or changing its
 *   own `spec.dependsOn` requeues its dependants (they may proceed, or see a cycle formed or broken);
 * - a primary going away, being deleted or changing its `spec.dependsOn` requeues what it
 *   depended on (a deletion waiting for its dependants may proceed).
 *
 * The Controller owns one per primary store; it holds keys only, the objects stay in the store.
 */
import {
  applicationKeyText,
  dependencyStateOf,
  isReadyDependency,
  type ApplicationsView,
  type Resource,
} from '../../core/internal.js';

export type DependantsOptions = {
  /** The store's object of a queue key (`namespace/name`). */
  readonly object: (key: string) => Resource | undefined;
  readonly enqueue: (key: string) => void;
};

export class Dependants {
  /** Queue key → the keys its `spec.dependsOn` names (resolved). */
  private readonly dependencies = new Map<string, ReadonlyArray<string>>();
  /** Queue key → the keys of the primaries that name it. */
  private readonly dependants = new Map<string, Set<string>>();

  /** What plans see of the other primaries: the store's objects, with this index for dependants. */
  readonly view: ApplicationsView;

  constructor(private readonly options: DependantsOptions) {
    this.view = {
      get: (namespace, name) => options.object(`${namespace}/${name}`),
      dependantsOf: (namespace, name) =>
        [...(this.dependants.get(`${namespace}/${name}`) ?? [])].flatMap((key) => options.object(key) ?? []),
    };
  }

  /** The keys of the primaries that depend on `key` (tests and diagnostics). */
  dependantsOf(key: string): ReadonlyArray<string> {
    return [...(this.dependants.get(key) ?? [])];
  }

  /**
   * One primary as the store saw it change (`before` absent: new; `after` absent: gone), whether by
   * a watch event or by the answer of our own write (a status write that makes it Ready is seen
   * here first: the watch event that follows is no news to the cache).
   */
  observe(before: Resource | undefined, after: Resource | undefined): void {
    const object = after ?? before;
    if (object === undefined) return;
    const key = applicationKeyText(dependencyStateOf(object).key);
    const was = this.dependencies.get(key) ?? NONE;
    const now = after === undefined ? NONE : dependencyStateOf(after).dependencies.map(applicationKeyText);
    const edgesChanged = !sameKeys(was, now);
    if (edgesChanged) this.relink(key, was, now);
    const startedDeleting = after !== undefined && isDeleting(after) && (before === undefined || !isDeleting(before));
    if (
      before === undefined ||
      after === undefined ||
      edgesChanged ||
      startedDeleting ||
      (isReadyDependency(after) && !isReadyDependency(before))
    )
      for (const dependant of this.dependants.get(key) ?? []) this.options.enqueue(dependant);
    if (after === undefined || edgesChanged || startedDeleting)
      for (const dependency of new Set([...was, ...now])) this.options.enqueue(dependency);
  }

  private relink(key: string, was: ReadonlyArray<string>, now: ReadonlyArray<string>): void {
    for (const dependency of was) {
      const set = this.dependants.get(dependency);
      set?.delete(key);
      if (set?.size === 0) this.dependants.delete(dependency);
    }
    for (const dependency of now) {
      const set = this.dependants.get(dependency) ?? new Set<string>();
      set.add(key);
      this.dependants.set(dependency, set);
    }
    if (now.length === 0) this.dependencies.delete(key);
    else this.dependencies.set(key, now);
  }
}

const NONE: ReadonlyArray<string> = [];

const sameKeys = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((key, i) => key === b[i]);

const isDeleting = (object: Resource): boolean => object.metadata.deletionTimestamp !== undefined;
