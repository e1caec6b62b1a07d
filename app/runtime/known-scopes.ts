/**
 * The scope table the runtime plans with: learned through discovery as primaries name kinds it
 * does not know yet, and forgotten for a kind the server stops serving (its CRD was deleted), so
 * the next plan says UnknownKind instead of retrying writes.
 */
import {
  builtinScopes,
  scopeKey,
  scopeOf,
  type Application,
  type Clock,
  type Discovery,
  type ScopeTable,
  type Memo,
} from '../../core/internal.js';
import { kindsOf, knowsEveryKind, resolveScopes } from '../reconcile/live-reader.js';

export type Kind = { readonly apiVersion: string; readonly kind: string };

export class KnownScopes {
  private table: ScopeTable;

  /**
   * `memo`: where what was found per Application object is kept (the controller's; none: nothing kept).
   * `onForgotten`: told once per kind that turns unknown, whoever found it gone (a child watch, or a
   * reconcile's UnknownKind), so the Applications naming it are planned again at once either way.
   */
  constructor(
    initial: ScopeTable = builtinScopes,
    private readonly memo?: Memo,
    private readonly onForgotten?: (kind: Kind) => void,
  ) {
    this.table = initial;
  }

  /** The table as known now (a new table after each change: plans keep the one they were made with). */
  get current(): ScopeTable {
    return this.table;
  }

  /**
   * Whether the server is known to serve `kind` (a kind it does not serve is not watched: its list would only fail).
   */
  knows(kind: Kind): boolean {
    return scopeOf(this.table, kind) !== undefined;
  }

  /** Whether the table as known now was found to know every kind `application` names (nothing for discovery). */
  knowsEveryKindOf(application: Application): boolean {
    return knowsEveryKind(application, this.table, this.memo);
  }

  /** The kinds `application` names that the server is not known to serve. */
  unknownKindsOf(application: Application): ReadonlyArray<Kind> {
    return kindsOf(application, this.memo).filter((kind) => !this.knows(kind));
  }

  /** Asks discovery for the kinds `application` names that the table does not know yet. */
  async learnKindsOf(application: Application, discovery: Discovery): Promise<void> {
    // A primary found to name only known kinds asks nothing more while the table is current.
    if (knowsEveryKind(application, this.table, this.memo)) return;
    this.table = await resolveScopes(application, this.table, discovery, this.memo);
  }

  /**
   * The server stopped serving `kind`: forgotten (built-in kinds never are), discovery learns it
   * again once it is served. True when it was known until now.
   */
  forget(kind: Kind): boolean {
    const key = scopeKey(kind.apiVersion, kind.kind);
    if (!this.table.has(key) || builtinScopes.has(key)) return false;
    const table = new Map(this.table);
    table.delete(key);
    this.table = table;
    this.onForgotten?.(kind);
    return true;
  }
}

/**
 * The kinds Applications wait for because the server does not serve them (a CRD not installed yet,
 * or deleted): discovery is asked again every `everyMs` while anyone waits, and once a kind is
 * served the keys waiting for it are handed to `onServed` — so an Application recovers within
 * about `everyMs` of its CRD's (re)install, not at its backoff (up to the stalled delay of 60 s).
 * Asked per group/version (the adapter shares one request per group/version), only while waited for.
 */
export class UnservedKinds {
  /** Kind key → the kind and the primary keys waiting for it. */
  private readonly waiting = new Map<string, { readonly kind: Kind; readonly keys: Set<string> }>();
  private cancelPoll: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      readonly discovery: Discovery;
      readonly clock: Clock;
      /** How often discovery is asked while some kind is waited for. */
      readonly everyMs: number;
      readonly onServed: (kind: Kind, keys: ReadonlyArray<string>) => void;
    },
  ) {}

  /** `key` waits for exactly `kinds` now (none: it waits for nothing). */
  wait(key: string, kinds: ReadonlyArray<Kind>): void {
    this.release(key);
    if (this.stopped) return;
    for (const kind of kinds) {
      const id = scopeKey(kind.apiVersion, kind.kind);
      const entry = this.waiting.get(id) ?? { kind, keys: new Set<string>() };
      entry.keys.add(key);
      this.waiting.set(id, entry);
    }
    this.schedule();
  }

  /** `key` waits for nothing (it converged, failed otherwise, or is gone). */
  release(key: string): void {
    if (this.waiting.size === 0) return; // every reconcile releases its key: most find nothing waiting
    for (const [id, entry] of this.waiting) {
      entry.keys.delete(key);
      if (entry.keys.size === 0) this.waiting.delete(id);
    }
  }

  /** Kinds waited for now (`apiVersion/kind` keys of the scope table). */
  get kinds(): ReadonlyArray<string> {
    return [...this.waiting.keys()];
  }

  stop(): void {
    this.stopped = true;
    this.cancelPoll?.();
    this.cancelPoll = undefined;
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.cancelPoll !== undefined || this.stopped || this.waiting.size === 0) return;
    this.cancelPoll = this.options.clock.setTimer(this.options.everyMs, () => void this.poll());
  }

  private async poll(): Promise<void> {
    const asked = [...this.waiting.values()].map(async ({ kind }) => {
      const scope = await this.options.discovery.scopeOf(kind.apiVersion, kind.kind)();
      return { kind, served: scope._tag === 'Right' };
    });
    const answers = await Promise.all(asked);
    this.cancelPoll = undefined;
    if (this.stopped) return;
    for (const { kind, served } of answers) {
      const id = scopeKey(kind.apiVersion, kind.kind);
      const entry = this.waiting.get(id);
      if (!served || entry === undefined) continue;
      this.waiting.delete(id);
      this.options.onServed(kind, [...entry.keys]);
    }
    this.schedule();
  }
}
