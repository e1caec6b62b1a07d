/**
 * Fields another controller owns (issue 38, docs/field-owners.md): an observed field whose live
 * value a known controller wrote (an HPA's `spec.replicas`, cert-manager's `caBundle`) is not
 * patched back, since the controller would set it again and the two would fight forever. The patch
 * leaves it out, `status.contestedFields` names it with its owner, and the Ready message says so;
 * the cure, stopping to observe the field, is the user's (the plan prints it).
 */
import { getOwn, isJsonArray, isJsonObject, objectFromEntries, type JsonValue } from '../json/json.js';
import { fromPointer, showPath } from '../json/path.js';
import { FIELD_MANAGER, type ContestedField } from '../model/application.js';
import type { PatchAction, Plan } from '../model/plan.js';
import type { ObjectRef, Resource } from '../model/resource.js';
import { knownManagerFor, managerNames, type KnownManager } from '../fields/known-managers.js';
import { managedEntries, managerOf, ownersIn, ownersOf, type FieldOwner } from '../fields/owners.js';
import { identifiedBy } from '../manifest/identity.js';
import { defined } from '../json/defined.js';

type Decided = { readonly patches: ReadonlyArray<PatchAction> };

/** The patches without the fields known controllers own, and those fields. */
export const withheldFights = <D extends Decided>(
  decided: D,
  liveOf: (ref: ObjectRef) => Resource | undefined,
  table: ReadonlyArray<KnownManager>,
): { readonly decided: D; readonly contested: ReadonlyArray<ContestedField> } => {
  if (table.length === 0 || decided.patches.length === 0) return { decided, contested: [] };
  const names = managerNames(table);
  const contested: Found[] = [];
  const patches = decided.patches.flatMap((action) => {
    const live = liveOf(action.ref);
    if (live === undefined || !hasManagerOf(live, names)) return [action];
    const found = contestedIn(action, live, table);
    if (found.length === 0) return [action];
    contested.push(...found);
    return withoutFields(action, new Set(found.map((field) => field.pointer)));
  });
  if (contested.length === 0) return { decided, contested: [] };
  return { decided: { ...decided, patches }, contested: contested.map(({ pointer: _pointer, ...field }) => field) };
};

/** Cheap test first: most live objects carry no entry of a known manager, and are not walked. */
const hasManagerOf = (live: Resource, names: ReadonlySet<string>): boolean => {
  const entries = getOwn(live.metadata, 'managedFields');
  return isJsonArray(entries) && entries.some((entry) => names.has(managerOf(entry) ?? ''));
};

type Found = ContestedField & { readonly pointer: string };

const contestedIn = (action: PatchAction, live: Resource, table: ReadonlyArray<KnownManager>): ReadonlyArray<Found> =>
  action.patch.flatMap((operation) => {
    if (operation.op === 'test') return [];
    // The first other owner that is a known controller, with its table entry (each looked up once).
    const [claim] = ownersOf(live, operation.path).flatMap((owner) => {
      const known =
        owner.manager === FIELD_MANAGER ? undefined : knownManagerFor(table, action.ref.kind, operation.path, owner);
      return known === undefined ? [] : [{ owner, known }];
    });
    if (claim === undefined) return [];
    const { owner, known } = claim;
    return [
      {
        resource: action.ref,
        path: readable(operation.path),
        pointer: operation.path,
        manager: owner.manager,
        ...defined({ subresource: owner.subresource, since: owner.time }),
        controller: known.controller,
      },
    ];
  });

/** `/spec/template/spec/containers/0/image` → `spec.template.spec.containers[0].image` (as plans print paths). */
export const readable = (pointer: string): string => readablePath(fromPointer(pointer));

/** `readable`, for a pointer already split into its tokens. */
const readablePath = (tokens: ReadonlyArray<string>): string =>
  showPath(tokens.map((token) => (/^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : token)));

/** The patch without the operations (their guards included) and changes at these pointers; none left, no patch. */
const withoutFields = (action: PatchAction, pointers: ReadonlySet<string>): ReadonlyArray<PatchAction> => {
  const patch = action.patch.filter((operation) => !pointers.has(operation.path));
  if (!patch.some((operation) => operation.op !== 'test')) return [];
  const paths = new Set([...pointers].map(readable));
  const changes = action.changes.filter((change) => !paths.has(change.path));
  const intent = action.serverSideApply;
  return [
    {
      ...action,
      patch,
      changes,
      ...(intent === undefined ? {} : { serverSideApply: { ...intent, body: withoutPointers(intent.body, pointers) } }),
    },
  ];
};

/** An applied configuration that no longer states these fields: kreconcile gives up its claim on them. */
const withoutPointers = (body: Resource, pointers: ReadonlySet<string>): Resource =>
  [...pointers].reduce<Resource>((current, pointer) => {
    const next = removedAt(current, fromPointer(pointer));
    return isJsonObject(next) && isJsonObject(getOwn(next, 'metadata')) ? { ...current, ...next } : current;
  }, body);

const removedAt = (value: JsonValue, tokens: ReadonlyArray<string>): JsonValue => {
  const [head, ...rest] = tokens;
  if (head === undefined || !isJsonObject(value)) return value;
  const child = getOwn(value, head);
  if (child === undefined) return value;
  const entries = Object.entries(value).filter(([key]) => key !== head);
  return objectFromEntries(rest.length === 0 ? entries : [...entries, [head, removedAt(child, rest)] as const]);
};

/** `planned` with `status.contestedFields` (removed when none) and a Ready message that names them. */
export const withFightReport = (planned: Plan, contested: ReadonlyArray<ContestedField>): Plan => {
  // Nothing contested now or before (most plans): the plan as it is, without copying its status.
  if (contested.length === 0 && planned.status.contestedFields === undefined) return planned;
  const { contestedFields: _previous, ...rest } = planned.status;
  if (contested.length === 0) return { ...planned, status: rest };
  // Said whether or not Ready: a rollout the HPA's scale holds up is when people look.
  const conditions = planned.status.conditions?.map((condition) =>
    condition.type === 'Ready'
      ? {
          ...condition,
          message: `${condition.message}; ${contested.length} observed field(s) left to the controllers that own them, see status.contestedFields`,
        }
      : condition,
  );
  return {
    ...planned,
    status: { ...rest, contestedFields: contested, ...defined({ conditions }) },
  };
};

/** What ends a fight, for people: stop observing the field. */
export const adviceFor = (field: ContestedField): string =>
  `stop observing ${field.path} of ${field.resource.kind} ${field.resource.name}: remove it from the resource's observer schema (${field.controller} owns it)`;

/** Who else owns a field a patch writes: the forecast printed under a plan (docs/field-owners.md). */
export type PatchedFieldOwners = {
  readonly resource: ObjectRef;
  readonly path: string;
  readonly owners: ReadonlyArray<FieldOwner>;
};

/**
 * For each field the plan's patches write, the other managers that own it on the live object now
 * (from its managedFields: a snapshot or cluster read keeps them, the operator's caches do not).
 * `live`: the objects the plan was made against.
 */
export const patchedFieldOwners = (plan: Plan, live: ReadonlyArray<Resource>): ReadonlyArray<PatchedFieldOwners> => {
  const patched = patchedObjects(plan, live);
  const found: PatchedFieldOwners[] = [];
  for (const action of plan.actions) {
    const object = action.type === 'patch' ? patched.get(action) : undefined;
    if (action.type !== 'patch' || object === undefined) continue;
    if (getOwn(object.metadata, 'managedFields') === undefined) continue;
    const entries = managedEntries(object);
    for (const operation of action.patch) {
      if (operation.op === 'test') continue;
      const path = fromPointer(operation.path);
      const owners = ownersIn(entries, object, path, FIELD_MANAGER);
      if (owners.length > 0) found.push({ resource: action.ref, path: readablePath(path), owners });
    }
  }
  return found;
};

/**
 * Each patch with its live object: the last object with the patch's identity, as `identityIndex` finds it. The
 * patches (few) are indexed by name, and the objects (all of the plan's) passed once.
 */
const patchedObjects = (plan: Plan, live: ReadonlyArray<Resource>): ReadonlyMap<PatchAction, Resource> => {
  const byName = new Map<string, PatchAction[]>();
  for (const action of plan.actions) {
    if (action.type !== 'patch') continue;
    const named = byName.get(action.ref.name);
    if (named === undefined) byName.set(action.ref.name, [action]);
    else named.push(action);
  }
  const patched = new Map<PatchAction, Resource>();
  if (byName.size === 0) return patched;
  for (const object of live)
    for (const action of byName.get(object.metadata.name) ?? NO_PATCHES)
      if (identifiedBy(object, action.ref)) patched.set(action, object);
  return patched;
};

const NO_PATCHES: ReadonlyArray<PatchAction> = [];
