/**
 * The kinds an Application is about to create children of, recorded on the Application itself
 * (annotation `kreconcile.io/intent-kinds`) by the metadata patch that adds its finalizer: the
 * crash-safety record (docs/behaviour.md §5) without a status write of its own. The live reader
 * reads the kinds named by the spec, the status and this annotation, so a process that dies between
 * the creates and the status write leaves no child a later process cannot find and prune.
 *
 * Anyone who may edit the Application can write the annotation: it is read bounded and decoded
 * entry by entry, what does not decode is ignored, and it only ever widens what is READ (which kinds
 * are listed and watched for objects carrying this Application's owner mark) — what is deleted is
 * still only what carries our marks, as for every other kind.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  getOwn,
  isJsonArray,
  isJsonObject,
  parseJsonText,
  patternStringCodec,
  type Application,
  type JsonValue,
  type Plan,
} from '../../core/internal.js';

export const INTENT_KINDS_ANNOTATION = 'kreconcile.io/intent-kinds';

export type Kind = { readonly apiVersion: string; readonly kind: string };

/** At most this many kinds are recorded or read (a tenant's annotation cannot make the reader list more). */
export const MAX_INTENT_KINDS = 32;

/** Longest annotation value read or written; a longer one is ignored whole (the status records what does not fit). */
export const MAX_INTENT_KINDS_TEXT = 4_096;

// What the API server accepts as a served kind: a group (DNS subdomain, at most 253 characters) and a
// version, or a core version; a kind whose lower case is a DNS-1035 label (CRD validation). Nothing
// else reaches discovery or a list URL from here.
const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const API_VERSION = new RegExp(`^((?=.{1,253}/)${LABEL}(\\.${LABEL})*/)?[a-z0-9]{1,63}$`);
const KIND = /^[A-Za-z]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

// The patterns bound the lengths themselves (253 + 1 + 63 and 63 characters).
export const KindCodec = t.type({
  apiVersion: patternStringCodec('apiVersion', API_VERSION, 317),
  kind: patternStringCodec('kind', KIND, 63),
});

/**
 * The kinds the annotation names, in order, without repeats: `[]` when it is absent, too long or
 * not a JSON list; entries that do not decode are skipped; at most `MAX_INTENT_KINDS`.
 */
export const intentKindsOf = (application: Pick<Application, 'metadata'>): ReadonlyArray<Kind> => {
  const annotations = getOwn(application.metadata, 'annotations');
  const text = isJsonObject(annotations) ? getOwn(annotations, INTENT_KINDS_ANNOTATION) : undefined;
  if (typeof text !== 'string' || text.length > MAX_INTENT_KINDS_TEXT) return [];
  const parsed = parsedOrNothing(text);
  if (!isJsonArray(parsed)) return [];
  const kinds = new Map<string, Kind>();
  for (const entry of parsed) {
    if (kinds.size === MAX_INTENT_KINDS) break;
    const decoded = KindCodec.decode(entry);
    // Only the kind is kept: nothing else an entry carries goes anywhere.
    if (E.isRight(decoded))
      kinds.set(kindKey(decoded.right), { apiVersion: decoded.right.apiVersion, kind: decoded.right.kind });
  }
  return [...kinds.values()];
};

export const parsedOrNothing = (text: string): JsonValue | undefined => {
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
};

/**
 * The annotation's value naming `kinds` (the ones it names already first, then the new ones), or
 * `undefined` when they would not fit its bounds: the intent is then recorded in the status instead.
 */
export const intentKindsText = (recorded: ReadonlyArray<Kind>, added: ReadonlyArray<Kind>): string | undefined => {
  const kinds = new Map<string, Kind>();
  for (const kind of [...recorded, ...added])
    kinds.set(kindKey(kind), { apiVersion: kind.apiVersion, kind: kind.kind });
  if (kinds.size > MAX_INTENT_KINDS || [...kinds.values()].some((kind) => !KindCodec.is(kind))) return undefined;
  const text = JSON.stringify([...kinds.values()]);
  return text.length > MAX_INTENT_KINDS_TEXT ? undefined : text;
};

export const kindKey = (kind: Kind): string => `${kind.apiVersion}|${kind.kind}`;

/**
 * How a plan's creations are recorded before they are sent (docs/behaviour.md §5): `Recorded` when
 * every kind it creates is named already (by the status or the annotation); `OnFinalizerPatch` when
 * the plan adds the finalizer before its creates (a new Application) and the kinds fit the
 * annotation: they ride on that metadata patch, no request of their own; else `InStatus`, a status
 * write of the desired state first. `statusKinds`: the kinds the stored status names (asked only when the plan creates
 * something).
 * `carried`: kinds recorded elsewhere that must be recorded too (an inventory taken over, inventory-takeover.ts).
 */
export type Intent =
  | { readonly _tag: 'Recorded' }
  | { readonly _tag: 'OnFinalizerPatch'; readonly annotations: Readonly<Record<string, string>> }
  | { readonly _tag: 'InStatus' };

export const intentOf = (
  application: Pick<Application, 'metadata'>,
  plan: Pick<Plan, 'actions'>,
  statusKinds: () => ReadonlyArray<Kind>,
  carried: ReadonlyArray<Kind> = [],
): Intent => {
  // Most reconciles create nothing and carry nothing over (a resync): answer before reading the annotation.
  const creates = plan.actions.some((action) => action.type === 'create' || action.type === 'recreate');
  if (!creates && carried.length === 0) return RECORDED;
  const annotated = intentKindsOf(application);
  const recorded = new Set([...statusKinds(), ...annotated].map(kindKey));
  const added = new Map<string, Kind>();
  const kinds = [
    ...plan.actions.flatMap((action) => (action.type === 'create' || action.type === 'recreate' ? [action.ref] : [])),
    ...carried,
  ];
  for (const kind of kinds)
    if (!recorded.has(kindKey(kind))) added.set(kindKey(kind), { apiVersion: kind.apiVersion, kind: kind.kind });
  if (added.size === 0) return RECORDED;
  // The order `plan` gives a new Application: the finalizer's write first, before any create.
  const text = plan.actions[0]?.type === 'addFinalizer' ? intentKindsText(annotated, [...added.values()]) : undefined;
  return text === undefined
    ? IN_STATUS
    : { _tag: 'OnFinalizerPatch', annotations: { [INTENT_KINDS_ANNOTATION]: text } };
};

const RECORDED: Intent = { _tag: 'Recorded' };
const IN_STATUS: Intent = { _tag: 'InStatus' };
