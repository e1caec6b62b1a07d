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
  type Discovery,
  type ScopeTable,
  type Memo,
} from '../../core/index.js';
import { knowsEveryKind, resolveScopes } from '../reconcile/live-reader.js';

type Kind = { readonly apiVersion: string; readonly kind: string };

export class KnownScopes {
  private table: ScopeTable;

  /** `memo`: where what was found per Application object is kept (the controller's; none: nothing kept). */
  constructor(
    initial: ScopeTable = builtinScopes,
    private readonly memo?: Memo,
  ) {
    this.table = initial;
  }

  /** The table as known now (a new table after each change: plans keep the one they were made with). */
  get current(): ScopeTable {
    return this.table;
  }

  /** Whether the server is known to serve `kind` (a kind it does not serve is not watched: its list would only fail). */
  knows(kind: Kind): boolean {
    return scopeOf(this.table, kind) !== undefined;
  }

  /** Asks discovery for the kinds `application` names that the table does not know yet. */
  async learnKindsOf(application: Application, discovery: Discovery): Promise<void> {
    // A primary found to name only known kinds asks nothing more while the table is current.
    if (knowsEveryKind(application, this.table, this.memo)) return;
    this.table = await resolveScopes(application, this.table, discovery, this.memo);
  }

  /** The server stopped serving `kind`: forgotten (built-in kinds never are), discovery learns it again once it is served. */
  forget(kind: Kind): void {
    const key = scopeKey(kind.apiVersion, kind.kind);
    if (!this.table.has(key) || builtinScopes.has(key)) return;
    const table = new Map(this.table);
    table.delete(key);
    this.table = table;
  }
}
