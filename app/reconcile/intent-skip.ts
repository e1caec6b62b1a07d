/**
 * An Application being deleted is never held by a kind only its `kreconcile.io/intent-kinds`
 * annotation names (issue 37): anyone who may edit the Application writes that annotation, and a
 * kind the operator may not list (forbidden) or the server does not serve would otherwise keep the
 * finalizer forever. While deleting, a read refused as Forbidden is made again without those kinds;
 * what was left unread is told in a Warning Event (`IntentKindsSkipped`), and children of those
 * kinds, if any, stay where they are (nothing is deleted that was not read).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  isJsonObject,
  scopeOf,
  showClusterError,
  type Application,
  type ClusterError,
  type Resource,
  type ScopeTable,
} from '../../core/internal.js';
import { INTENT_KINDS_ANNOTATION, intentKindsOf, kindKey, type Kind } from './intent-kinds.js';
import { statusKinds } from './live-reader.js';

/** Something a reconcile tells in a Warning Event beside its writes. */
export type ReconcileNote = { readonly reason: string; readonly message: string };

/** The kinds the annotation names that neither the manifest in force nor the status names. */
export const intentOnlyKinds = (application: Application): ReadonlyArray<Kind> => {
  const named = new Set(
    [...(application.spec.manifest ?? []), ...statusKinds(application.status)].flatMap((entry) =>
      isJsonObject(entry) && typeof entry.apiVersion === 'string' && typeof entry.kind === 'string'
        ? [kindKey({ apiVersion: entry.apiVersion, kind: entry.kind })]
        : [],
    ),
  );
  return intentKindsOf(application).filter((kind) => !named.has(kindKey(kind)));
};

/** `application` without the intent annotation: what its live read covers without those kinds. */
export const withoutIntentKinds = (application: Application): Application => {
  const annotations = application.metadata.annotations;
  if (annotations === undefined) return application;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([key]) => key !== INTENT_KINDS_ANNOTATION));
  return { ...application, metadata: { ...application.metadata, annotations: kept } };
};

const skippedNote = (kinds: ReadonlyArray<Kind>, why: string): ReconcileNote => ({
  reason: 'IntentKindsSkipped',
  message: `while deleting, kinds named only by ${INTENT_KINDS_ANNOTATION} were not read (${why}): ${kinds
    .map((kind) => `${kind.apiVersion}/${kind.kind}`)
    .join(', ')}; children of those kinds, if any, are left in place`,
});

type Read = E.Either<ClusterError, ReadonlyArray<Resource>>;

/**
 * The live read of an Application being deleted (`first`), made again without the kinds only the
 * intent annotation names when it was refused as Forbidden (`readAgain` reads a view of it); with
 * a note naming the kinds left unread, those refused or not served.
 */
export const deletionRead = async (
  application: Application,
  scopes: ScopeTable,
  first: Read,
  readAgain: (view: Application) => Read | Promise<Read>,
): Promise<{ readonly live: Read; readonly note?: ReconcileNote }> => {
  const intentOnly = intentOnlyKinds(application);
  if (intentOnly.length === 0) return { live: first };
  if (E.isRight(first)) {
    const unserved = intentOnly.filter((kind) => scopeOf(scopes, kind) === undefined);
    return unserved.length === 0 ? { live: first } : { live: first, note: skippedNote(unserved, 'not served') };
  }
  if (first.left._tag !== 'Forbidden') return { live: first };
  const again = await readAgain(withoutIntentKinds(application));
  return E.isLeft(again)
    ? { live: first }
    : { live: again, note: skippedNote(intentOnly, `the read was refused: ${showClusterError(first.left)}`) };
};
